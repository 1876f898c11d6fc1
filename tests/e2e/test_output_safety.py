#!/usr/bin/env python3
"""An output path never destroys what is there, and every write error is reported.

Destinations that are not regular files are written into (FIFO, character device) or refused
(socket), links are followed, an output that is one of the run's inputs is refused before
anything runs, and a full standard output is an error (exit 2) for every command. Every file,
FIFO, link and device node is made in the test's own temporary folder; the only system file
used is /dev/full, opened for writing as the shell's `> /dev/full` would."""
import os
import socket
import stat
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import main, sanitized  # noqa: E402

SENTENCE = "the cat sat on the mat"


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def run_raw(env, argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE):
    proc = subprocess.run([os.path.abspath(env.exe), *argv], stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                          timeout=300, cwd=env.tmp)
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def expect_refused(env, argv, words, stdin=subprocess.DEVNULL):
    code, err = run_raw(env, argv, stdin=stdin)
    assert code == 2, f"exit {code} for {argv}: {err}"
    lines = [line for line in err.splitlines() if "error" in line]
    assert len(lines) == 1, err
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"


def test_output_that_is_an_input_is_refused(env):
    emb = env.path("e.txt")
    write(emb, read(env.embeddings).decode("utf-8"))
    before = read(emb)
    os.link(emb, env.path("hard.txt"))
    os.symlink("e.txt", env.path("link.txt"))
    for flag in ("--json", "--png", "--svg", "--html", "--params-out"):
        for out in ("e.txt", "hard.txt", "link.txt"):
            expect_refused(env, ["run", "--text", SENTENCE, "-e", "e.txt", flag, out],
                           [flag, out, "same file as --embeddings", "name another file"])
    # the output flag first, the input after it: the same
    expect_refused(env, ["run", "--png", "e.txt", "--text", SENTENCE, "--embeddings", "e.txt"],
                   ["--png e.txt", "--embeddings"])
    assert read(emb) == before
    assert not os.path.exists(env.path("real.json"))


def test_output_that_is_standard_input_is_refused(env):
    write(env.path("s.txt"), SENTENCE)
    with open(env.path("s.txt"), "rb") as stdin:
        expect_refused(env, ["run", "--text", "-", "--json", "s.txt"],
                       ["--json s.txt", "same file as standard input"], stdin=stdin)
    assert read(env.path("s.txt")) == SENTENCE.encode()


def test_parameters_in_and_out_are_not_the_same_file(env):
    code, err = run_raw(env, ["run", "--text", SENTENCE, "--score", "general",
                              "--params-out", "p.safetensors"])
    assert code == 0, err
    before = read(env.path("p.safetensors"))
    expect_refused(env, ["run", "--text", SENTENCE, "--score", "general", "--params",
                         "p.safetensors", "--params-out", "p.safetensors"],
                   ["--params-out p.safetensors", "same file as --params"])
    assert read(env.path("p.safetensors")) == before


def test_batch_and_other_commands_refuse_their_inputs(env):
    write(env.path("lines.txt"), SENTENCE + "\n")
    before = read(env.path("lines.txt"))
    # han and transformer take --params too
    expect_refused(env, ["han", "--document", "A b. C d.", "--params", "lines.txt",
                         "--params-out", "lines.txt"], ["--params-out lines.txt", "--params"])
    expect_refused(env, ["compare", "--text", SENTENCE, "-e", "lines.txt", "--json", "lines.txt"],
                   ["--json lines.txt", "--embeddings"])
    assert read(env.path("lines.txt")) == before


def test_an_extension_of_another_format_is_refused(env):
    base = ["run", "--text", SENTENCE, "--embeddings", env.embeddings]
    for flag, name, want in [("--png", "x.jpg", "x.png"), ("--svg", "x.png", "x.svg"),
                             ("--json", "x.txt", "x.json"), ("--html", "x.svg", "x.html"),
                             ("--params-out", "x.json", "x.safetensors")]:
        expect_refused(env, [*base, flag, name], [f"{flag} {name}", want])
        assert not os.path.exists(env.path(name))
    # the same table in every command: model's --png, draw's --html, heads' --json
    hf = os.path.join(env.data, "hf", "gpt2_f32")
    expect_refused(env, ["model", "--model", hf, "--ids", "1,2", "--png", "m.jpeg"], ["--png m.jpeg", "m.png"])
    expect_refused(env, ["heads", "--model", hf, "--json", "h.yaml"], ["--json h.yaml", "h.json"])
    # any case of the right extension, no extension, and standard output are fine
    code, err = run_raw(env, [*base, "--png", "Upper.PNG", "--json", "plain", "--svg", "page.SVG"])
    assert code == 0, err
    assert all(os.path.exists(env.path(n)) for n in ("Upper.PNG", "plain", "page.SVG"))


def test_fifo_is_written_into(env):
    fifo = env.path("pipe")
    os.mkfifo(fifo)
    got = {}

    def reader():
        with open(fifo, "rb") as f:
            got["bytes"] = f.read()
    t = threading.Thread(target=reader)
    t.start()
    code, err = run_raw(env, ["run", "--text", SENTENCE, "--json", "pipe"])
    if t.is_alive() and "bytes" not in got:  # the run never opened the FIFO: free the reader
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    t.join(timeout=60)
    assert code == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a file"
    assert got["bytes"].startswith(b"{") and b'"weights"' in got["bytes"], got["bytes"][:200]


def test_symlink_is_followed(env):
    write(env.path("target.png"), "old")
    os.symlink("target.png", env.path("link.png"))
    code, err = run_raw(env, ["run", "--text", SENTENCE, "--png", "link.png"])
    assert code == 0, err
    assert os.path.islink(env.path("link.png")), "the link was replaced by a file"
    assert read(env.path("target.png"))[:8] == b"\x89PNG\r\n\x1a\n"


def test_socket_is_refused(env):
    s = socket.socket(socket.AF_UNIX)
    s.bind(env.path("sock"))
    try:
        expect_refused(env, ["run", "--text", SENTENCE, "--json", "sock"],
                       ["--json sock", "is a socket"])
        assert stat.S_ISSOCK(os.lstat(env.path("sock")).st_mode)
    finally:
        s.close()


def test_private_device_nodes(env):
    null_node, full_node = env.path("null"), env.path("full")
    try:
        os.mknod(null_node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        os.mknod(full_node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except PermissionError:
        print("  (not root: device nodes skipped)")
        return
    code, err = run_raw(env, ["run", "--text", SENTENCE, "--png", "null", "--json", "null.json"])
    assert code == 0, err
    assert stat.S_ISCHR(os.lstat(null_node).st_mode), "the device node was replaced"
    code, err = run_raw(env, ["run", "--text", SENTENCE, "--json", "full", "--png", "x.png"])
    assert code == 2 and "No space left on device" in err, (code, err)
    assert stat.S_ISCHR(os.lstat(full_node).st_mode)
    assert not os.path.exists(env.path("x.png")), "a file was written although the run failed"


def test_full_standard_output_is_an_error_for_every_command(env):
    write(env.path("lines.txt"), SENTENCE + "\n")
    commands = [
        ["run", "--text", SENTENCE],
        ["run", "--text", SENTENCE, "--json", "-"],
        ["run", "--text", SENTENCE, "--term"],
        ["run", "--input", "lines.txt", "--out-dir", "batch", "--quiet"],
        ["explain", "--text", SENTENCE, "--query", "cat"],
        ["compare", "--text", SENTENCE, "--scores", "dot,cosine"],
        ["transformer", "--source", "paris is big", "--target", "what is big"],
        ["aoa", "--document", "paris is the capital of france", "--query", "what capital"],
        ["han", "--document", "The food was cold. The waiter was rude."],
        ["list"],
        ["list", "score"],
        ["demo", "--out-dir", "demo"],
        ["bench", "--n", "16", "--d", "8", "--heads", "1", "--reps", "1", "--warmup", "0"],
        ["man"],
        ["completion", "bash"],
        ["--help"],
        ["run", "--help"],
        ["--version"],
    ]
    for argv in commands:
        with open("/dev/full", "wb") as full:
            code, err = run_raw(env, argv, stdout=full)
        assert code == 2, f"exit {code} for {argv} > /dev/full: {err}"
        assert "attn-viz: error: standard output: cannot write: No space left on device" in err, \
            f"{argv}: {err}"


def test_out_of_range_numbers_are_refused_by_name(env):
    cases = [
        (["--threads", "99999999999", "run", "--text", SENTENCE], ["--threads 99999999999", "at most"]),
        (["run", "--text", SENTENCE, "--threads", "-1"], ["--threads", "must be 0 or more, got -1"]),
        (["run", "--text", SENTENCE, "--seed", "-1"], ["--seed", "must be 0 or more, got -1"]),
        (["run", "--text", SENTENCE, "--pad-keys", "1,-1"], ["--pad-keys", "got -1"]),
        (["explain", "--text", SENTENCE, "--query", "cat", "--vocabulary", "-1"],
         ["--vocabulary", "got -1"]),
        (["bench", "--n", "-5"], ["--n", "got -5"]),
        (["run", "--text", SENTENCE, "--position", "alibi", "--alibi-slope", "0"],
         ["--alibi-slope", "must be a number above 0, got 0"]),
        (["run", "--text", SENTENCE, "--score", "cosine", "--sharpen", "1e308"],
         ["--sharpen 1e+308", "overflowed"]),
        (["run", "--text", SENTENCE, "--position", "alibi", "--heads", "2", "--alibi-slope", "1e308"],
         ["--alibi-slope 1e+308", "overflowed"]),
    ]
    for argv, words in cases:
        code, err = run_raw(env, argv)
        assert code == 2, f"exit {code} for {argv}: {err}"
        assert len(err) < 300, f"message too long: {err}"
        for w in words:
            assert w in err, f"{w!r} not in {err!r}"


def test_long_tokens_are_cut_in_messages_and_the_index(env):
    token = "x" * 2_000_000
    write(env.path("long.txt"), f"the {token} sat\n")
    code, err = run_raw(env, ["run", "--text", "-", "--json", "long.json"],
                        stdin=open(env.path("long.txt"), "rb"))
    assert code == 0, err[:500]
    assert "x" * 40 + "… (2000000 bytes)" in err and len(err) < 1000, err[:500]
    code, err = run_raw(env, ["run", "--input", "long.txt", "--out-dir", "batch", "--quiet",
                              "--formats", "json"])
    assert code == 0, err[:500]
    assert len(err) < 1000, err[:500]
    import json
    index = json.loads(read(env.path("batch/index.json")))
    assert index["runs"][0]["text"].endswith("… (2000008 bytes)"), index["runs"][0]["text"][:300]
    assert os.path.getsize(env.path("batch/index.json")) < 2000


def test_a_failed_run_leaves_no_folder_it_made(env):
    write(env.path("bad.txt"), "cat 1 2\ndog 3\n")
    code, err = run_raw(env, ["run", "--text", SENTENCE, "-e", "bad.txt",
                              "--cache-dir", "cache/sub"])
    assert code == 2 and "bad.txt:2" in err, err
    assert not os.path.exists(env.path("cache")), "the failed --cache-dir run left its folder"
    try:  # a write that fails after the folder is made: a private twin of /dev/full
        os.mknod(env.path("full2"), 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except PermissionError:
        print("  (not root: the --npy case is skipped)")
        return
    code, err = run_raw(env, ["run", "--text", SENTENCE, "--npy", "npy", "--png", "full2"])
    assert code == 2 and "No space left on device" in err, err
    assert not os.path.exists(env.path("npy")), "the failed --npy run left its folder"


def test_json_under_a_memory_limit_fails_cleanly(env):
    import resource
    if sanitized(env.exe):
        print("  (AddressSanitizer build: no address-space limit possible, skipped)")
        return
    words = [line.split(" ", 1)[0] for line in open(env.embeddings, encoding="utf-8")][:300]
    write(env.path("2k.txt"), " ".join(words[(i * 7) % len(words)] for i in range(2000)))
    outcomes, before_work = set(), 0
    for mib in (150, 400):  # the estimate (about 170 MiB) refuses the first
        def limit(mib=mib):
            resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))
        out = env.path(f"j{mib}.json")
        with open(env.path("2k.txt"), "rb") as stdin:
            proc = subprocess.run([os.path.abspath(env.exe), "run", "--tokens", "-", "--no-stream",
                                   "--json", out], stdin=stdin, capture_output=True,
                                  preexec_fn=limit, timeout=300)
        err = proc.stderr.decode("utf-8", "replace")
        assert proc.returncode in (0, 2), f"{mib} MiB: exit {proc.returncode}: {err[-500:]}"
        outcomes.add(proc.returncode)
        if proc.returncode == 2:
            # refused before any work when the estimate passes what ulimit -v leaves, else
            # stopped cleanly when an allocation fails
            assert "out of memory" in err or "(what the address-space limit (ulimit -v) leaves " \
                "this process)" in err, err
            before_work += "ulimit -v" in err
            assert not os.path.exists(out), "a failed run left its JSON"
        else:
            assert read(out).endswith(b"}\n")
    assert outcomes == {0, 2}, f"the limits did not bracket the run: {outcomes}"
    assert before_work > 0, "no run was refused before its work"
    # the size check counts the JSON text (about 13 bytes a number): it stops the run first
    code, err = run_raw(env, ["run", "--tokens", "-", "--no-stream", "--json", "x.json",
                              "--max-memory", "150M"], stdin=open(env.path("2k.txt"), "rb"))
    assert code == 2 and "would need about" in err, err


def tree(root, skip=(".attn-viz-journal.jsonl",)):
    """Every file under root (relative path -> bytes), the journal left out."""
    files = {}
    for folder, _, names in os.walk(root):
        for n in names:
            if n in skip:
                continue
            full = os.path.join(folder, n)
            files[os.path.relpath(full, root)] = read(full)
    return files


def test_resume_after_sigterm_gives_the_files_of_a_clean_run(env):
    import random
    import signal
    import time
    words = [line.split(" ", 1)[0] for line in open(env.embeddings, encoding="utf-8")][:400]
    rng = random.Random(3)
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(20, 60))) for _ in range(200)]
    write(env.path("lines.txt"), "\n".join(lines) + "\n")
    batch = ["run", "--input", "lines.txt", "--formats", "png,json,npy", "--quiet", "-j", "2"]
    code, err = run_raw(env, batch + ["--out-dir", "clean"])
    assert code == 0, err

    journal = env.path("killed/.attn-viz-journal.jsonl")
    proc = subprocess.Popen([os.path.abspath(env.exe), *batch, "--out-dir", "killed"],
                            cwd=env.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline:
        if os.path.exists(journal) and sum(1 for _ in open(journal, "rb")) > 40:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGTERM, f"the batch ended before the kill ({proc.returncode})"
    done = sum(1 for _ in open(journal, "rb")) - 1
    assert 0 < done < len(lines), done
    # what a kill can leave: a commit's temporary file, a record cut short; and a file cut after
    write(env.path("killed/.0003-x.png.tmp-AbC123"), "half")
    with open(journal, "ab") as f:
        f.write(b'{"files":[["0199-')
    first = json_line(journal, 1)
    with open(env.path("killed/" + first["files"][0][0]), "r+b") as f:
        f.truncate(10)

    # other settings: refused, nothing touched
    before = tree(env.path("killed"))
    code, err = run_raw(env, batch + ["--out-dir", "killed", "--resume", "--score", "dot"])
    assert code == 2 and "other settings" in err, err
    assert tree(env.path("killed")) == before

    code, out_err = run_raw(env, batch + ["--out-dir", "killed", "--resume"])
    assert code == 0, out_err
    clean, resumed = tree(env.path("clean")), tree(env.path("killed"))
    assert sorted(clean) == sorted(resumed), set(clean) ^ set(resumed)
    for name in clean:
        assert clean[name] == resumed[name], f"{name} differs from the clean run's"


def test_a_killed_runs_temporaries_are_removed_by_the_next_write_there(env):
    """A run killed while writing (here SIGXFSZ: a file-size limit it crosses writing its JSON)
    leaves its .NAME.tmp-XXXXXX; the next write into that folder removes it and says so. A
    temporary that a run still writing holds (its lock) is left alone, as are names that are
    not attn-viz's pattern."""
    import fcntl
    import resource
    import signal
    folder = env.path("killed-write")
    os.makedirs(folder)
    text = " ".join(["the cat sat on the mat"] * 20)

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    proc = subprocess.run([os.path.abspath(env.exe), "run", "--text", text, "--json", "out.json"],
                          cwd=folder, capture_output=True, preexec_fn=small_files, timeout=120)
    assert proc.returncode == -signal.SIGXFSZ, (proc.returncode, proc.stderr)
    left = [n for n in os.listdir(folder) if n.startswith(".out.json.tmp-")]
    assert len(left) == 1 and not os.path.exists(os.path.join(folder, "out.json")), os.listdir(folder)
    # a temporary another run is still writing (it holds the lock), and a name of another kind
    live = os.path.join(folder, ".other.png.tmp-Xy12Zw")
    write(live, "being written")
    holder = open(live, "rb")
    fcntl.flock(holder, fcntl.LOCK_EX)
    write(os.path.join(folder, ".notes.tmp-mine"), "keep")
    old = os.path.getmtime(live) - 60
    for name in left + [".other.png.tmp-Xy12Zw"]:
        os.utime(os.path.join(folder, name), (old, old))
    try:
        proc = subprocess.run([os.path.abspath(env.exe), "run", "--text", "the cat sat", "--png", "a.png"],
                              cwd=folder, capture_output=True, text=True, timeout=120)
    finally:
        holder.close()
    assert proc.returncode == 0, proc.stderr
    assert f"attn-viz: note: removed 1 temporary file that an earlier run, stopped before it finished, " \
           f"left in .: {left[0]}" in proc.stderr, proc.stderr
    assert sorted(os.listdir(folder)) == [".notes.tmp-mine", ".other.png.tmp-Xy12Zw", "a.png"], os.listdir(folder)


def json_line(path, k):
    import json
    with open(path, encoding="utf-8") as f:
        return json.loads(f.read().splitlines()[k])


def test_resume_reports_what_it_skipped(env):
    write(env.path("two.txt"), "the cat sat\nthe dog ran\n")
    code, err = run_raw(env, ["run", "--input", "two.txt", "--out-dir", "two", "--quiet"])
    assert code == 0, err
    proc = subprocess.run([os.path.abspath(env.exe), "run", "--input", "two.txt", "--out-dir",
                           "two", "--quiet", "--resume"], cwd=env.tmp, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert "ran 0 of 2 line(s), 2 already done (--resume)" in proc.stdout, proc.stdout


def test_a_failed_standard_output_replaces_no_file(env):
    """A run whose standard output cannot be written leaves every existing output as it was."""
    os.makedirs(env.path("out"), exist_ok=True)
    samples = os.path.abspath(env.samples)
    for argv in (["run", "--text", "the cat sat", "--png", "out/existing.png", "--json", "-"],
                 ["run", "--text", "the cat sat", "--json", "out/existing.json", "--png", "-"],
                 ["model", "--model", os.path.join(samples, "kjv-gpt"), "--text", "And God said",
                  "--png", "out/existing.png", "--json", "-"]):
        for name in ("existing.png", "existing.json"):
            write(env.path(os.path.join("out", name)), "keep me")
        with open("/dev/full", "wb") as full:
            code, err = run_raw(env, argv, stdout=full)
        assert code == 2 and "standard output: cannot write" in err, (argv, code, err)
        for name in ("existing.png", "existing.json"):
            assert read(env.path(os.path.join("out", name))) == b"keep me", (argv, name)
        assert sorted(os.listdir(env.path("out"))) == ["existing.json", "existing.png"], \
            (argv, os.listdir(env.path("out")))


if __name__ == "__main__":
    sys.exit(main(globals()))
