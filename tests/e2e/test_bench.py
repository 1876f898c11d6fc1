"""attn-viz bench, --threads and --isa from the outside: the JSON's shape and FLOP counts, the
same attention under every instruction set and thread count, and bad values exiting 2."""
import json
import sys

from harness import main


def bench(env, *argv, **kw):
    out, _ = env.run(*argv, **kw)
    return json.loads(out)


def test_bench_reports_stages_flops_and_memory(env):
    j = bench(env, "--threads", "1", "bench", "--n", "40", "--d", "48", "--heads", "4", "--reps", "3",
              "--warmup", "0")
    assert (j["n_q"], j["n_k"], j["d_model"], j["heads"], j["d_k"], j["d_v"]) == (40, 40, 48, 4, 12, 12)
    assert j["threads"] == 1 and j["reps"] == 3 and len(j["times_s"]) == 3
    assert list(j["stages_s"]) == ["project", "attend", "combine"]  # the fused path
    n, d = 40, 48
    assert abs(j["gflop"]["project"] - 2 * n * d * 3 * d / 1e9) < 1e-12
    assert abs(j["gflop"]["attend"] - 2 * n * n * 4 * (12 + 12) / 1e9) < 1e-12
    assert abs(j["gflop"]["combine"] - 2 * n * d * d / 1e9) < 1e-12
    assert sorted(j["times_s"])[1] == j["total_s"]  # the median
    assert j["peak_rss_mib"] > 1
    b = j["blocking"]  # the caches found and the sizes derived from them
    assert b["l1d"] > 0 and b["l2"] > b["l1d"] and b["kc"] == (512 if j["isa"] == "avx512" else 256)
    assert b["panel_depth"] % b["kc"] == 0
    assert b["l3"] <= max(32 << 20, 4 * b["l2"])  # a larger L3 is taken as 32 MiB (none: 4 L2)
    assert b["mc"] % 6 == 0 and b["forced"] == ""
    j = bench(env, "bench", "--n", "40", "--d", "48", "--reps", "1", "--heads", "4",
              extra_env={"ATTNVIZ_BLOCKING": "l2=256K,l3=4M"})
    assert j["blocking"]["l2"] == 262144 and j["blocking"]["panel_a_bytes"] == 1 << 20
    assert j["blocking"]["caches_from"] == "ATTNVIZ_BLOCKING" and j["blocking"]["forced"] == "l2=256K,l3=4M"


def test_bench_other_variants_time_each_stage(env):
    j = bench(env, "bench", "--n", "30", "--nk", "20", "--d", "16", "--heads", "0", "--score",
              "additive", "--da", "8", "--align", "sparsemax", "--reps", "1")
    assert (j["n_q"], j["n_k"]) == (30, 20)
    assert list(j["stages_s"]) == ["project", "score", "align", "context"]


def test_every_isa_and_thread_count_gives_the_same_attention(env):
    """The run's JSON under each instruction set (1 and 2 threads) agrees to float rounding, and
    thread counts agree bit for bit on one instruction set."""
    first = None
    for isa in ("generic", "avx2", "avx512"):
        outs = []
        for threads in ("1", "2"):
            out, err = env.run("--threads", threads, "--isa", isa, "run", "--text",
                               "the cat sat on the mat because it was tired", "--embeddings",
                               env.embeddings, "--heads", "5", "--json", env.path(f"{isa}{threads}.json"),
                               expect=None)
            if env.last_code == 2 and "not available here" in err:
                break  # this CPU lacks it
            assert env.last_code == 0, err
            with open(env.path(f"{isa}{threads}.json"), "rb") as f:
                outs.append(f.read())
        if not outs:
            continue
        assert outs[0] == outs[1], f"{isa}: 1 and 2 threads differ"
        weights = [h["weights"] for h in json.loads(outs[0])["heads"]]
        if first is None:
            first = weights
        for a, b in zip(first, weights):
            for ra, rb in zip(a, b):
                assert max(abs(x - y) for x, y in zip(ra, rb)) < 1e-5, isa


def test_product_times_each_blocking_in_turn_with_the_same_bytes(env):
    m, n, k = 600, 130, 90  # past 512 rows: panel_a=1 sends it down the packed path
    hashes = set()
    for threads in ("1", "2"):
        j = bench(env, "--threads", threads, "bench", "--product", f"{m}x{n}x{k}", "--weights", "bf16",
                  "--blocking", "panels=1", "--blocking", "default", "--blocking", "mc=6,panel_depth=1,panel_a=1",
                  "--rounds", "3", "--warmup", "0")
        assert j["product"] == {"m": m, "n": n, "k": k, "weights": "bf16"}
        assert abs(j["gflop"] - 2 * m * n * k / 1e9) < 1e-12
        assert j["b_copies"] * n * k * 2 >= 256 << 20  # B fresh from memory every call
        assert [b["spec"] for b in j["blockings"]] == ["panels=1", "default", "mc=6,panel_depth=1,panel_a=1"]
        first, default, small = j["blockings"]
        assert first["blocking"]["panels"] == 1 and first["blocking"]["forced"] == "panels=1"
        assert default["blocking"]["forced"] == ""
        assert small["blocking"]["mc"] == 6 and small["blocking"]["panel_a_bytes"] == 1
        # 130 columns: 3 panels of 64, 9 of 16 or 17 of 8, too few for more than one a group
        for b, path in zip(j["blockings"], ("panel", "panel", "tiled")):
            plan = b["plan"]
            assert plan["path"] == path and plan["panels"] == -(-n // plan["nr"]), plan
            assert plan.get("group") == (1 if path == "panel" else None), plan
        for b in j["blockings"]:
            assert len(b["times_s"]) == 3 and all(t > 0 for t in b["times_s"])
            assert abs(b["gflops"] - j["gflop"] / b["median_s"]) < 1e-6 * b["gflops"]
            s = b["speed_vs_first"]
            assert s["q1"] <= s["median"] <= s["q3"]
            hashes.add(b["c_fnv1a"])
        assert first["speed_vs_first"] == {"median": 1.0, "q1": 1.0, "q3": 1.0}
    # the panel path, the packed path (panel_a=1) and every thread count: one C
    assert len(hashes) == 1, hashes
    _, err = env.run("bench", "--product", "10x3", expect=2)
    assert "--product '10x3' is not MxNxK" in err and "Traceback" not in err
    _, err = env.run("bench", "--product", "8x0x8", expect=2)
    assert "is not MxNxK" in err
    _, err = env.run("bench", "--product", "8x8x8", "--blocking", "l2=lots", expect=2)
    assert "'l2=lots' is not KEY=SIZE" in err
    _, err = env.run("bench", "--product", "8x8x8", "--n", "5", expect=2)
    assert "--n excludes --product" in err
    _, err = env.run("bench", "--rounds", "3", expect=2)
    assert "--rounds requires --product" in err


def test_bad_threads_and_isa_exit_2(env):
    _, err = env.run("--isa", "sse9", "list", expect=2)
    assert "instruction set 'sse9' is not available here" in err and "generic" in err
    _, err = env.run("--threads", "many", "list", expect=2)
    assert "--threads" in err
    _, err = env.run("bench", "--n", "0", expect=2)
    assert "--n" in err
    _, err = env.run("bench", "--n", "8", "--d", "8", "--heads", "3", expect=2)
    assert "--heads 3 must divide d_model = 8" in err


if __name__ == "__main__":
    sys.exit(main(globals()))
