"""Shared plumbing for the end-to-end tests: arguments, running the CLI, a tiny test runner."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

SKIP = 77  # ctest SKIP_RETURN_CODE


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--exe", required=True)
    p.add_argument("--samples", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--shared", required=True)
    return p.parse_args()


class Env:
    def __init__(self, args):
        self.exe = args.exe
        self.samples = args.samples
        self.data = args.data
        self.shared = args.shared
        self.embeddings = os.path.join(args.samples, "glove.6B.50d.sample.txt")
        self.tmp = tempfile.mkdtemp(prefix="attnviz-e2e-")

    def path(self, name):
        return os.path.join(self.tmp, name)

    def run(self, *argv, expect=0, extra_env=None, stdin=None, with_code=False, timeout=300):
        """Runs attn-viz; checks the exit code (unless expect is None; the code is kept in
        last_code); returns (stdout, stderr) as text."""
        env = dict(os.environ, **(extra_env or {}))
        feed = {"input": stdin.encode("utf-8")} if stdin is not None else {"stdin": subprocess.DEVNULL}
        proc = subprocess.run([self.exe, *argv], capture_output=True, env=env, timeout=timeout, **feed)
        self.last_code = proc.returncode
        out = proc.stdout.decode("utf-8", "replace")
        err = proc.stderr.decode("utf-8", "replace")
        if expect is not None and proc.returncode != expect:
            raise AssertionError(
                f"exit {proc.returncode}, expected {expect}: {argv}\nstdout:\n{out}\nstderr:\n{err}")
        return out, err

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def sanitized(exe):
    """True for an AddressSanitizer build (its shadow memory is not the program's: RSS figures
    and address-space limits mean nothing there)."""
    out = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    return "libasan" in out


_LAUNCHER = ("import os, subprocess, sys\n"
             "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
             "err = p.stderr.read()\n"
             "_, status, usage = os.wait4(p.pid, 0)\n"
             "print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)\n"
             "sys.stderr.write(err.decode('utf-8', 'replace'))\n")


def peak_rss(exe, argv):
    """Runs exe with argv; returns (exit code, its peak resident set in bytes, stderr). The child
    is started from a small launcher process, since the kernel counts a process's memory before
    its exec too (a child forked from this test, which holds its own data, would start high)."""
    proc = subprocess.run([sys.executable, "-S", "-c", _LAUNCHER, exe, *argv], capture_output=True,
                          text=True, timeout=300)
    code, rss = proc.stdout.split()
    return int(code), int(rss), proc.stderr


class Skipped(Exception):
    """Raised by a test that cannot run here (a missing browser, say): reported as SKIPPED."""


def run_tests(tests, env):
    """Runs every test(env); prints a line each (a passed one with its seconds) and the closing 'N passed, N skipped, N failed'
    line. Exit code: 1 when any failed; else 77 (ctest's SKIP_RETURN_CODE: the test shows as
    skipped) when any was skipped; else 0."""
    passed = failed = skipped = 0
    for test in tests:
        started = time.monotonic()
        try:
            test(env)
            passed += 1
            print(f"PASS {test.__name__} ({time.monotonic() - started:.1f} s)")
        except Skipped as why:
            skipped += 1
            print(f"SKIPPED {test.__name__}: {why}")
        except Exception:  # noqa: BLE001 - report every failure and go on
            failed += 1
            print(f"FAIL {test.__name__}")
            traceback.print_exc(file=sys.stdout)
    env.cleanup()
    print(f"{passed} passed, {skipped} skipped, {failed} failed")
    return 1 if failed else SKIP if skipped else 0


def import_numpy():
    """NumPy, or exit with ctest's skip code when Debian's python3-numpy is not installed."""
    try:
        import numpy
    except ImportError:
        print("numpy is not installed (Debian: python3-numpy); skipping")
        sys.exit(SKIP)
    return numpy


def import_pil_image():
    """PIL's Image (an independent PNG decoder), or exit with ctest's skip code when Debian's
    python3-pil is not installed."""
    try:
        from PIL import Image
    except ImportError:
        print("PIL is not installed (Debian: python3-pil); skipping")
        sys.exit(SKIP)
    return Image


def main(namespace):
    """Runs every test_* function of a test module (pass its globals())."""
    env = Env(parse_args())
    tests = [v for k, v in sorted(namespace.items()) if k.startswith("test_")]
    return run_tests(tests, env)


def png_size(path):
    """Width and height from the IHDR chunk, after checking the PNG signature."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert head[12:16] == b"IHDR"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
