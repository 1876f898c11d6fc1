#!/usr/bin/env python3
"""An IBM Model 2 word aligner with fast_align's diagonal reparameterization (Dyer, Chahuneau &
Smith 2013, "A Simple, Fast, and Effective Reparameterization of IBM Model 2"), written from the
paper: the baseline attn-viz's alignments are set beside (evaluate_translation.py).

For a source sentence e_1..e_n (with e_0 = NULL) and a target sentence f_1..f_m, each target
word f_i picks one source position a_i:

    p(a_i = j | i, m, n) = p0                                     j = 0 (NULL)
                           (1 − p0) · exp(λ h(i, j, m, n)) / Z_λ(i, m, n)    j = 1 … n
    h(i, j, m, n) = −|i/m − j/n|,   Z_λ(i, m, n) = Σ_{j'=1..n} exp(λ h(i, j', m, n))
    p(f_i | e_j) = θ(f_i | e_j)

EM (5 iterations, θ uniform at first): the E-step's posterior of a_i = j is p(a_i = j)·θ(f_i|e_j)
normalized over j; the M-step sets θ(f|e) from the expected counts c(e, f), by mean-field
variational Bayes under a symmetric Dirichlet prior α = 0.01 (fast_align's -v: θ(f|e) =
exp(ψ(c(e, f) + α) − ψ(Σ_f' (c(e, f') + α))), the sum over the f' seen with e; α = None gives
plain maximum likelihood, c(e, f) / Σ_f c(e, f)), and λ
to the value that maximizes the expected log-probability of the non-NULL links,
Σ post·(λ h − log Z_λ), by golden-section search on [0.1, 100] (the paper updates λ by gradient
steps; the maximum is the same). p0 stays at 0.08, fast_align's default. The alignment is the
Viterbi one, argmax_j p(a_i = j)·θ(f_i|e_j), NULL meaning unaligned; both directions joined by
grow-diag-final-and (Koehn et al. 2003) or intersected; or, posterior decoding (Liang, Taskar &
Klein 2006), the links whose two directions' posteriors multiplied pass a threshold. Words are
whitespace tokens. Everything is NumPy over one flat array of every (sentence, i, j) link, so
both directions of the 31,084 verse pairs of the Bible train, with their posteriors, in about
four minutes (2-vCPU AMD EPYC).
"""
import math

import numpy as np

P0 = 0.08


class Corpus:
    """Every link (sentence, target i, source j incl. NULL) of a list of (source words, target
    words) pairs, as flat arrays; links of one target word are contiguous (j = 0 … n)."""

    def __init__(self, pairs):
        src_vocab, tgt_vocab = {"<null>": 0}, {}
        e, f, i_pos, j_pos, m_len, n_len, group = [], [], [], [], [], [], []
        self.shapes = []
        g = 0
        for src, tgt in pairs:
            es = [0] + [src_vocab.setdefault(w, len(src_vocab)) for w in src]
            fs = [tgt_vocab.setdefault(w, len(tgt_vocab)) for w in tgt]
            m, n = len(fs), len(src)
            self.shapes.append((m, n))
            for i, fi in enumerate(fs, 1):
                e.extend(es)
                f.extend([fi] * (n + 1))
                i_pos.extend([i] * (n + 1))
                j_pos.extend(range(n + 1))
                m_len.extend([m] * (n + 1))
                n_len.extend([n] * (n + 1))
                group.extend([g] * (n + 1))
                g += 1
        self.e, self.f = np.array(e, np.int64), np.array(f, np.int64)
        self.j = np.array(j_pos, np.int64)
        i_arr, m_arr, n_arr = (np.array(x, np.float64) for x in (i_pos, m_len, n_len))
        # h for the non-NULL links (0 for NULL, unused)
        self.h = np.where(self.j > 0, -np.abs(i_arr / m_arr - self.j / np.maximum(n_arr, 1)), 0.0)
        self.group = np.array(group, np.int64)
        self.starts = np.flatnonzero(np.r_[True, self.group[1:] != self.group[:-1]])
        self.groups = g
        codes = self.e * (len(tgt_vocab) + 1) + self.f
        self.pairs, self.pair_of = np.unique(codes, return_inverse=True)
        self.e_of_pair = self.pairs // (len(tgt_vocab) + 1)
        self.src_vocab, self.tgt_vocab = src_vocab, tgt_vocab


def log_z(c, lam):
    """log Z_λ per target word (over its non-NULL links), and the normalized exp(λh)."""
    w = np.where(c.j > 0, np.exp(lam * c.h), 0.0)
    z = np.add.reduceat(w, c.starts)
    return np.log(np.maximum(z, 1e-300)), w / np.maximum(z, 1e-300)[c.group]


def prior(c, lam):
    """p(a_i = j | i, m, n) for every link."""
    _, dist = log_z(c, lam)
    return np.where(c.j == 0, P0, (1.0 - P0) * dist)


def best_lambda(c, post):
    """argmax_λ Σ_{non-NULL links} post · (λ h − log Z_λ), golden-section search on [0.1, 100]."""
    real = c.j > 0
    weight = np.add.reduceat(np.where(real, post, 0.0), c.starts)  # posterior mass off NULL

    def objective(lam):
        lz, _ = log_z(c, lam)
        return float((post[real] * lam * c.h[real]).sum() - (weight * lz).sum())

    lo, hi = 0.1, 100.0
    phi = (math.sqrt(5) - 1) / 2
    a, b = hi - phi * (hi - lo), lo + phi * (hi - lo)
    fa, fb = objective(a), objective(b)
    for _ in range(40):
        if fa < fb:
            lo, a, fa = a, b, fb
            b = lo + phi * (hi - lo)
            fb = objective(b)
        else:
            hi, b, fb = b, a, fa
            a = hi - phi * (hi - lo)
            fa = objective(a)
    return (lo + hi) / 2


def digamma(x):
    """ψ(x) for x > 0: shifted up past 10 by ψ(x) = ψ(x + 1) − 1/x, then the asymptotic series
    (its next term below 5e-11 there)."""
    x = np.asarray(x, np.float64).copy()
    shift = np.zeros_like(x)
    for _ in range(10):
        small = x < 10.0
        shift -= np.where(small, 1.0 / x, 0.0)
        x = np.where(small, x + 1.0, x)
    r = 1.0 / (x * x)
    return shift + np.log(x) - 0.5 / x - r * (1.0 / 12 - r * (1.0 / 120 - r / 252))


def link_posteriors(c, theta, lam):
    """The posterior p(a_i = j | f, e) of every link: p(a_i = j)·θ(f_i|e_j) normalized over j."""
    score = prior(c, lam) * theta[c.pair_of]
    total = np.add.reduceat(score, c.starts)
    return score / np.maximum(total, 1e-300)[c.group]


def em_step(c, theta, lam, alpha=0.01):
    """One EM iteration: (θ, λ) after it, and the posterior of every link."""
    post = link_posteriors(c, theta, lam)
    counts = np.bincount(c.pair_of, weights=post, minlength=len(c.pairs))
    if alpha is None:
        per_e = np.bincount(c.e_of_pair, weights=counts)
        theta = counts / np.maximum(per_e[c.e_of_pair], 1e-300)
    else:
        per_e = np.bincount(c.e_of_pair, weights=counts + alpha)
        theta = np.exp(digamma(counts + alpha) - digamma(per_e[c.e_of_pair]))
    return theta, best_lambda(c, post), post


def train(pairs, iterations=5, lam=4.0, alpha=0.01):
    """θ (per distinct (e, f) pair of the corpus, uniform over the target vocabulary at first)
    and λ after `iterations` EM steps (λ starts at fast_align's 4)."""
    c = Corpus(pairs)
    theta = np.full(len(c.pairs), 1.0 / max(1, len(c.tgt_vocab)))
    for _ in range(iterations):
        theta, lam, _ = em_step(c, theta, lam, alpha)
    return c, theta, lam


def viterbi(c, theta, lam):
    """Per sentence, the links (source word j − 1, target word i − 1) of each target word's best
    non-NULL position (a NULL best: unaligned), as (source, target) from 0."""
    score = prior(c, lam) * theta[c.pair_of]
    out, g = [], 0
    for m, n in c.shapes:
        links = set()
        for i in range(m):
            s = c.starts[g]
            j = int(np.argmax(score[s:s + n + 1]))
            if j > 0:
                links.add((j - 1, i))
            g += 1
        out.append(links)
    return out


def grow_diag_final_and(forward, reverse):
    """Koehn et al.'s heuristic over two sets of (source, target) pairs."""
    union, a = forward | reverse, set(forward & reverse)
    src, tgt = {s for s, _ in a}, {t for _, t in a}
    ns = max([s for s, _ in union] + [-1]) + 1
    nt = max([t for _, t in union] + [-1]) + 1
    steps = [(-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]
    added = True
    while added:
        added = False
        for s in range(ns):
            for t in range(nt):
                if (s, t) not in a:
                    continue
                for ds, dt in steps:
                    q = (s + ds, t + dt)
                    if q in union and q not in a and (q[0] not in src or q[1] not in tgt):
                        a.add(q)
                        src.add(q[0])
                        tgt.add(q[1])
                        added = True
    for direction in (forward, reverse):
        for s, t in sorted(direction):
            if s not in src and t not in tgt:
                a.add((s, t))
                src.add(s)
                tgt.add(t)
    return a


def posterior_matrices(c, post):
    """Per sentence, the [m, n] posteriors of its non-NULL links (target word i, source word j,
    from 0)."""
    out, k = [], 0
    for m, n in c.shapes:
        out.append(post[k:k + m * (n + 1)].reshape(m, n + 1)[:, 1:].astype(np.float32))
        k += m * (n + 1)
    return out


def posterior_links(products, threshold):
    """Per sentence, the (source, target) pairs whose two directions' posteriors multiplied pass
    `threshold` (posterior decoding; a word may stay unaligned or take several links)."""
    out = []
    for p in products:
        targets, sources = np.nonzero(p > threshold)
        out.append({(int(j), int(i)) for i, j in zip(targets, sources)})
    return out


class Alignment:
    """Both directions of IBM Model 2 over one corpus, read five ways, every one as (source word,
    target word) pairs per sentence: `forward` and `reverse` (each direction's Viterbi links),
    `joined` (their grow-diag-final-and), `intersect()` (the links both agree on); `products`
    per sentence the [target, source] product p_fwd(a_i = j | f, e) · p_rev(b_j = i | e, f) of
    the two directions' link posteriors, which posterior_links(products, t) reads (Liang et al.
    2006's posterior decoding of two directions); `lambdas` each direction's λ."""

    def __init__(self, forward, reverse, joined, products, lambdas):
        self.forward, self.reverse, self.joined = forward, reverse, joined
        self.products, self.lambdas = products, lambdas

    def intersect(self):
        return [f & r for f, r in zip(self.forward, self.reverse)]


def align(pairs, iterations=5, alpha=0.01):
    """Both directions trained on `pairs` ((source words, target words)), as an Alignment."""
    c, theta, lam = train(pairs, iterations, alpha=alpha)
    forward = viterbi(c, theta, lam)
    fwd_post = posterior_matrices(c, link_posteriors(c, theta, lam))
    del c
    rc, rtheta, rlam = train([(t, s) for s, t in pairs], iterations, alpha=alpha)
    reverse = [{(s, t) for t, s in links} for links in viterbi(rc, rtheta, rlam)]
    rev_post = posterior_matrices(rc, link_posteriors(rc, rtheta, rlam))
    products = [f * r.T for f, r in zip(fwd_post, rev_post)]
    joined = [grow_diag_final_and(f, r) for f, r in zip(forward, reverse)]
    return Alignment(forward, reverse, joined, products, (lam, rlam))
