#!/usr/bin/env python3
"""The IBM Model 2 baseline (samples/translation/ibm_model2.py) against a tiny corpus worked by
hand: the prior p(a_i = j) of fast_align's diagonal, one EM step's posteriors and θ, λ's update
maximizing its objective, the Viterbi links, posterior decoding (the two directions' link
posteriors multiplied, recomputed here from each trained direction), and grow-diag-final-and on
a hand-worked case."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import import_numpy, main  # noqa: E402

np = import_numpy()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples",
                                "translation"))
import ibm_model2 as ibm  # noqa: E402

P0 = 0.08


def hand_prior(i, j, m, n, lam):
    if j == 0:
        return P0
    h = lambda jj: -abs(i / m - jj / n)  # noqa: E731
    return (1 - P0) * math.exp(lam * h(j)) / sum(math.exp(lam * h(jj)) for jj in range(1, n + 1))


def test_one_em_step_by_hand(env):
    # two pairs: "a b" -> "x y", and "a" -> "x"; the target vocabulary {x, y}: θ starts at 1/2
    pairs = [(["a", "b"], ["x", "y"]), (["a"], ["x"])]
    c = ibm.Corpus(pairs)
    lam = 4.0
    theta0 = np.full(len(c.pairs), 0.5)
    prior = ibm.prior(c, lam)
    # the links in order: pair 1, i = 1 (x): NULL, a, b; i = 2 (y): NULL, a, b; pair 2, i = 1: NULL, a
    want_prior = [hand_prior(1, j, 2, 2, lam) for j in range(3)] + \
                 [hand_prior(2, j, 2, 2, lam) for j in range(3)] + [hand_prior(1, j, 1, 1, lam) for j in range(2)]
    assert np.allclose(prior, want_prior, rtol=1e-12)
    theta, new_lam, post = ibm.em_step(c, theta0, lam, alpha=None)  # maximum likelihood
    # θ uniform: each posterior is the prior normalized over its target word's links
    want_post = want_prior[:3] / np.sum(want_prior[:3])
    assert np.allclose(post[:3], want_post) and np.allclose(post[6:], np.array(want_prior[6:]) / sum(want_prior[6:]))
    # expected counts c(e, f), then θ(f|e) = c(e, f) / Σ_f c(e, f)
    counts = {}
    words_e = [["<null>", "a", "b"], ["<null>", "a", "b"], ["<null>", "a"]]
    words_f = ["x", "y", "x"]
    k = 0
    for es, fw in zip(words_e, words_f):
        for ew in es:
            counts[(ew, fw)] = counts.get((ew, fw), 0.0) + post[k]
            k += 1
    for (ew, fw), cnt in counts.items():
        total = sum(v for (e2, _), v in counts.items() if e2 == ew)
        idx = np.flatnonzero((c.e == c.src_vocab[ew]) & (c.f == c.tgt_vocab[fw]))[0]
        assert abs(theta[c.pair_of[idx]] - cnt / total) < 1e-12, (ew, fw)
    # with variational Bayes (α = 0.01): θ = exp(ψ(c + α) − ψ(Σ_f (c + α))), ψ checked against
    # values from the series ψ(1) = −γ, ψ(x + 1) = ψ(x) + 1/x
    assert abs(ibm.digamma([1.0])[0] + 0.5772156649015329) < 1e-10
    assert abs(ibm.digamma([4.5])[0] - (ibm.digamma([0.5])[0] + 2 + 2 / 3 + 2 / 5 + 2 / 7)) < 1e-10
    assert abs(ibm.digamma([0.5])[0] - (-0.5772156649015329 - 2 * math.log(2))) < 1e-10
    theta_vb, _, _ = ibm.em_step(c, theta0, lam, alpha=0.01)
    for (ew, fw), cnt in counts.items():
        total = sum(v + 0.01 for (e2, _), v in counts.items() if e2 == ew)
        idx = np.flatnonzero((c.e == c.src_vocab[ew]) & (c.f == c.tgt_vocab[fw]))[0]
        want = math.exp(ibm.digamma([cnt + 0.01])[0] - ibm.digamma([total])[0])
        assert abs(theta_vb[c.pair_of[idx]] - want) < 1e-12, (ew, fw)
    # λ maximizes Σ post (λ h − log Z) over the non-NULL links: no nearby value does better
    def objective(l):
        total = 0.0
        for k2, (i, j, m, n) in enumerate([(1, 0, 2, 2), (1, 1, 2, 2), (1, 2, 2, 2), (2, 0, 2, 2),
                                           (2, 1, 2, 2), (2, 2, 2, 2), (1, 0, 1, 1), (1, 1, 1, 1)]):
            if j == 0:
                continue
            z = sum(math.exp(-l * abs(i / m - jj / n)) for jj in range(1, n + 1))
            total += post[k2] * (-l * abs(i / m - j / n) - math.log(z))
        return total
    for other in (new_lam * 0.9, new_lam * 1.1):
        assert objective(new_lam) >= objective(other) - 1e-9, (new_lam, other)


def test_alignment_and_symmetrization(env):
    # "a" goes with "x", "b" with "y", "c" with "z"; the last pair crosses the diagonal, and the
    # translation probabilities learnt from the others win it back in both directions
    pairs = [(["a", "b"], ["x", "y"]), (["a"], ["x"]), (["b"], ["y"]), (["a", "c"], ["x", "z"])] * 3 + \
            [(["a", "b"], ["y", "x"])]
    al = ibm.align(pairs, iterations=5)
    forward, reverse, joined = al.forward, al.reverse, al.joined
    assert forward[0] == reverse[0] == joined[0] == {(0, 0), (1, 1)}
    assert forward[-1] == reverse[-1] == joined[-1] == {(0, 1), (1, 0)}
    assert al.intersect()[-1] == {(0, 1), (1, 0)}
    assert all(0.1 <= l <= 100 for l in al.lambdas)
    # posterior decoding: the product of the two directions' link posteriors, each computed here
    # from the trained model's own prior and θ (one direction's row sums to 1 with NULL)
    c, theta, lam = ibm.train(pairs, iterations=5)
    rc, rtheta, rlam = ibm.train([(t, s) for s, t in pairs], iterations=5)
    def posterior(corpus, th, l, sentence, i, j):  # target word i, source word j, from 0
        m, n = corpus.shapes[sentence]
        start = sum(mm * (nn + 1) for mm, nn in corpus.shapes[:sentence]) + i * (n + 1)
        links = [ibm.prior(corpus, l)[start + k] * th[corpus.pair_of[start + k]] for k in range(n + 1)]
        return links[j + 1] / sum(links)
    last = len(pairs) - 1
    for i in range(2):
        for j in range(2):
            want = posterior(c, theta, lam, last, i, j) * posterior(rc, rtheta, rlam, last, j, i)
            assert abs(al.products[last][i, j] - want) < 1e-6, (i, j, al.products[last][i, j], want)
    p = al.products[last]
    cut = (min(p[0, 1], p[1, 0]) + max(p[0, 0], p[1, 1])) / 2  # between the crossing and the rest
    assert p[0, 0] < cut < p[1, 0] < p[0, 1], p
    assert ibm.posterior_links(al.products, cut)[last] == {(1, 0), (0, 1)}
    assert ibm.posterior_links(al.products, 1.0)[last] == set()
    # grow-diag-final-and by hand (the same case as the C++ unit test)
    f, r = {(0, 0), (1, 1), (2, 3)}, {(0, 0), (1, 2), (3, 3)}
    assert ibm.grow_diag_final_and(f, r) == {(0, 0), (1, 1), (1, 2), (2, 3), (3, 3)}
    assert ibm.grow_diag_final_and({(0, 0), (4, 0)}, {(0, 0), (5, 5)}) == {(0, 0), (5, 5)}


if __name__ == "__main__":
    sys.exit(main(globals()))
