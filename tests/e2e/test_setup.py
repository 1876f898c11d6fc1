#!/usr/bin/env python3
"""The README's set-up command starts with scripts/setup-debian.sh, which must work as root
without sudo (containers, CI: .ci/run runs it so, with no shim) and as a user with sudo. Here it
runs against stand-ins for id, sudo, dpkg-query and apt-get that log what they were asked, so
each case's choices are checked without installing anything."""
import os
import re
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import main  # noqa: E402

STUBS = {
    "id": '#!/bin/sh\n[ "$1" = -u ] && echo "$FAKE_UID"\n',
    "sudo": '#!/bin/sh\necho "sudo $*" >> "$LOG"\nexec "$@"\n',
    "apt-get": '#!/bin/sh\necho "apt-get $*" >> "$LOG"\n',
    # every package of $INSTALLED is installed; the rest are not known
    "dpkg-query": '#!/bin/sh\neval "p=\\${$#}"\nfor i in $INSTALLED; do\n'
                  '  [ "$i" = "$p" ] && { printf "install ok installed"; exit 0; }\ndone\nexit 1\n',
}
BUILD = ["cmake", "g++", "libcli11-dev", "nlohmann-json3-dev", "libstb-dev", "libfmt-dev", "doctest-dev",
         "zlib1g-dev", "libpcre2-dev", "libutf8proc-dev", "pkg-config", "python3-numpy", "python3-pil"]


def root_of(env):
    return os.path.dirname(os.path.abspath(env.samples))


def setup(env, name, uid, sudo, installed, *extra):
    """Runs the script with only the stand-ins (and sh, env) on PATH; returns (code, log, err)."""
    bin_dir = env.path(f"bin-{name}")
    os.makedirs(bin_dir)
    for tool, body in STUBS.items():
        if tool == "sudo" and not sudo:
            continue
        path = os.path.join(bin_dir, tool)
        with open(path, "w") as f:
            f.write(body)
        os.chmod(path, stat.S_IRWXU)
    for tool in ("sh", "env"):
        os.symlink(subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True, text=True)
                   .stdout.strip(), os.path.join(bin_dir, tool))
    log = env.path(f"log-{name}")
    open(log, "w").close()
    proc = subprocess.run(["sh", os.path.join(root_of(env), "scripts", "setup-debian.sh"), *extra],
                          env={"PATH": bin_dir, "FAKE_UID": str(uid), "LOG": log,
                               "INSTALLED": " ".join(installed)},
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, open(log).read().splitlines(), proc.stderr


def test_the_readme_runs_the_script_first(env):
    readme = open(os.path.join(root_of(env), "README.md"), encoding="utf-8").read()
    block = re.search(r"<!-- setup-command -->\s*```sh\n(.*?)\n```", readme, re.S).group(1)
    assert block.startswith("sh scripts/setup-debian.sh && "), block
    assert "sudo" not in block, block


def test_root_without_sudo_installs_what_is_missing_directly(env):
    code, log, err = setup(env, "root", 0, False, BUILD[2:])
    assert code == 0, err
    assert log == ["apt-get update", "apt-get install -y cmake g++"], log


def test_a_user_with_sudo_installs_through_it(env):
    code, log, err = setup(env, "user", 1000, True, BUILD[:-1], "zsh")
    assert code == 0, err
    assert log == ["sudo apt-get update", "apt-get update",
                   "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-pil zsh",
                   "apt-get install -y python3-pil zsh"], log


def test_nothing_runs_as_root_when_everything_is_there(env):
    code, log, err = setup(env, "all", 1000, False, BUILD + ["chromium"], "chromium")
    assert code == 0 and log == [], (code, log, err)


def test_a_user_without_sudo_is_told_what_to_install(env):
    code, log, err = setup(env, "nosudo", 1000, False, BUILD[1:])
    assert code == 1 and log == [], (code, log)
    assert "missing: cmake" in err and "as root" in err, err


if __name__ == "__main__":
    sys.exit(main(globals()))
