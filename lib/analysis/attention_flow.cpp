#include "analysis/attention_flow.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <queue>

#include "error.h"

namespace attnviz {

namespace {

constexpr double eps = 1e-15;  // residual capacity taken as none

// Whether every edge goes from a token to the same or a later one (every chosen Â
// lower-triangular): cap[b][t · n + u] is 0 for u < t.
bool forward_only(const std::vector<std::vector<double>>& cap, std::size_t n) {
  for (const auto& c : cap)
    for (std::size_t t = 0; t < n; ++t)
      for (std::size_t u = 0; u < t; ++u)
        if (c[t * n + u] != 0.0) return false;
  return true;
}

// Dinic's algorithm on the layered graph: nodes (b, t), b ∈ [0, L], t ∈ [lo, hi]; the edge
// (b, t) → (b + 1, u) has capacity cap[b][t][u] (source-major: Â_{b+1}[u, t]); its flow is kept
// twice, source-major (out_) and target-major (in_), so that both a node's forward arcs
// (residual cap − flow) and its backward arcs (residual: the flow into it) are contiguous.
class layered_flow {
 public:
  layered_flow(const std::vector<std::vector<double>>& cap, std::size_t n, bool causal)
      : cap_(cap),
        L_(cap.size()),
        n_(n),
        causal_(causal),
        out_(L_ * n * n),
        in_(L_ * n * n),
        level_((L_ + 1) * n),
        next_((L_ + 1) * n) {}

  // The maximum flow from (0, j) to (L, i) through tokens [lo, hi].
  double run(std::size_t j, std::size_t i, std::size_t lo, std::size_t hi) {
    lo_ = lo;
    hi_ = hi;
    for (std::size_t b = 0; b < L_; ++b)
      for (std::size_t t = lo; t <= hi; ++t) {
        std::fill_n(out_.begin() + static_cast<std::ptrdiff_t>(at(b, t, lo)), hi - lo + 1, 0.0);
        std::fill_n(in_.begin() + static_cast<std::ptrdiff_t>(at(b, t, lo)), hi - lo + 1, 0.0);
      }
    double total = 0.0;
    while (levels(j, i)) {
      for (std::size_t b = 0; b <= L_; ++b)
        std::fill_n(next_.begin() + static_cast<std::ptrdiff_t>(b * n_ + lo), hi - lo + 1, 0);
      for (double f; (f = push(0, j, i, std::numeric_limits<double>::infinity())) > 0.0;)
        total += f;
    }
    return total;
  }

 private:
  std::size_t at(std::size_t b, std::size_t r, std::size_t c) const {
    return (b * n_ + r) * n_ + c;
  }
  std::size_t width() const { return hi_ - lo_ + 1; }
  // Arc k of node (b, t): k < width forward to (b + 1, lo + k), else backward to
  // (b − 1, lo + k − width); its residual capacity (0 where there is no such arc).
  double residual(std::size_t b, std::size_t t, std::size_t k, std::size_t& nb,
                  std::size_t& nt) const {
    const std::size_t w = width();
    if (k < w) {
      nt = lo_ + k;
      nb = b + 1;
      if (b == L_ || (causal_ && nt < t)) return 0.0;
      return cap_[b][t * n_ + nt] - out_[at(b, t, nt)];
    }
    nt = lo_ + k - w;
    nb = b - 1;
    if (b == 0 || (causal_ && nt > t)) return 0.0;
    return in_[at(b - 1, t, nt)];
  }
  // Moves f along arc (b, t) → (nb, nt).
  void move(std::size_t b, std::size_t t, std::size_t nb, std::size_t nt, double f) {
    if (nb > b) {
      out_[at(b, t, nt)] += f;
      in_[at(b, nt, t)] += f;
    } else {
      out_[at(nb, nt, t)] -= f;
      in_[at(nb, t, nt)] -= f;
    }
  }
  bool levels(std::size_t j, std::size_t i) {
    for (std::size_t b = 0; b <= L_; ++b)
      std::fill_n(level_.begin() + static_cast<std::ptrdiff_t>(b * n_ + lo_), width(), -1);
    std::queue<std::size_t> q;
    level_[j] = 0;
    q.push(j);
    while (!q.empty()) {
      const std::size_t u = q.front(), b = u / n_, t = u % n_;
      q.pop();
      for (std::size_t k = 0, nb = 0, nt = 0; k < 2 * width(); ++k)
        if (residual(b, t, k, nb, nt) > eps && level_[nb * n_ + nt] < 0) {
          level_[nb * n_ + nt] = level_[u] + 1;
          q.push(nb * n_ + nt);
        }
    }
    return level_[L_ * n_ + i] >= 0;
  }
  double push(std::size_t b, std::size_t t, std::size_t sink, double f) {
    if (b == L_ && t == sink) return f;
    const std::size_t u = b * n_ + t;
    for (int& k = next_[u]; k < static_cast<int>(2 * width()); ++k) {
      std::size_t nb = 0, nt = 0;
      const double r = residual(b, t, static_cast<std::size_t>(k), nb, nt);
      if (r > eps && level_[nb * n_ + nt] == level_[u] + 1) {
        const double got = push(nb, nt, sink, std::min(f, r));
        if (got > 0.0) {
          move(b, t, nb, nt, got);
          return got;
        }
      }
    }
    return 0.0;
  }
  const std::vector<std::vector<double>>& cap_;
  std::size_t L_, n_;
  bool causal_;
  std::size_t lo_ = 0, hi_ = 0;
  std::vector<double> out_, in_;
  std::vector<int> level_, next_;
};

// Dinic's maximum flow on an explicit edge list with double capacities (the reference).
class max_flow {
 public:
  explicit max_flow(std::size_t nodes) : adj_(nodes), level_(nodes), next_(nodes) {}
  void add_edge(std::size_t from, std::size_t to, double cap) {
    adj_[from].push_back(edges_.size());
    edges_.push_back({to, cap});
    adj_[to].push_back(edges_.size());
    edges_.push_back({from, 0.0});
  }
  void reset(const std::vector<double>& caps) {
    for (std::size_t e = 0; e < edges_.size(); ++e) edges_[e].cap = caps[e];
  }
  std::vector<double> capacities() const {
    std::vector<double> c(edges_.size());
    for (std::size_t e = 0; e < edges_.size(); ++e) c[e] = edges_[e].cap;
    return c;
  }
  double run(std::size_t s, std::size_t t) {
    double total = 0.0;
    while (levels(s, t)) {
      std::fill(next_.begin(), next_.end(), 0);
      for (double f; (f = push(s, t, std::numeric_limits<double>::infinity())) > 0.0;) total += f;
    }
    return total;
  }

 private:
  struct edge {
    std::size_t to;
    double cap;
  };
  bool levels(std::size_t s, std::size_t t) {
    std::fill(level_.begin(), level_.end(), -1);
    std::queue<std::size_t> q;
    level_[s] = 0;
    q.push(s);
    while (!q.empty()) {
      const std::size_t u = q.front();
      q.pop();
      for (const std::size_t e : adj_[u])
        if (edges_[e].cap > eps && level_[edges_[e].to] < 0) {
          level_[edges_[e].to] = level_[u] + 1;
          q.push(edges_[e].to);
        }
    }
    return level_[t] >= 0;
  }
  double push(std::size_t u, std::size_t t, double f) {
    if (u == t) return f;
    for (std::size_t& k = next_[u]; k < adj_[u].size(); ++k) {
      const std::size_t e = adj_[u][k];
      const std::size_t v = edges_[e].to;
      if (edges_[e].cap > eps && level_[v] == level_[u] + 1) {
        const double got = push(v, t, std::min(f, edges_[e].cap));
        if (got > 0.0) {
          edges_[e].cap -= got;
          edges_[e ^ 1].cap += got;
          return got;
        }
      }
    }
    return 0.0;
  }
  std::vector<std::vector<std::size_t>> adj_;
  std::vector<edge> edges_;
  std::vector<int> level_;
  std::vector<std::size_t> next_;
};

matrix identity_flow(std::size_t n) {  // no layers: every token reaches only itself
  matrix out(n, n);
  for (std::size_t i = 0; i < n; ++i) out(i, i) = 1.0f;
  return out;
}

}  // namespace

double flow_work(std::size_t n, std::size_t layers, bool causal) {
  const double n4 = std::pow(static_cast<double>(n), 4.0);
  return static_cast<double>(layers) * (causal ? n4 / 12.0 : n4);
}

void check_flow_size(std::size_t n, std::size_t layers, bool causal) {
  if (flow_work(n, layers, causal) <= flow_max_work) return;
  std::size_t fits = 1;
  while (flow_work(fits + 1, layers, causal) <= flow_max_work) ++fits;
  throw usage_error(
      fmt::format("{} flow: one maximum flow per pair of tokens is for short texts "
                  "(through {} {}layers, at most {} tokens; about L · n⁴{} steps); "
                  "this run has {} (use rollout, or fewer {})",
                  param("view"), layers, causal ? "causal " : "", fits, causal ? " / 12" : "", n,
                  param("layers")));
}

matrix attention_flow(const model_maps& m, const std::vector<std::size_t>& layers,
                      progress_style style) {
  const std::size_t n = m.n, L = layers.size();
  if (L == 0) return identity_flow(n);
  std::vector<std::vector<double>> cap;  // per boundary, source-major: cap[b][t · n + u] = Â[u, t]
  for (const std::size_t l : layers) {
    const std::vector<double> a = residual_map(m, l);
    std::vector<double> t(n * n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) t[j * n + i] = a[i * n + j];
    cap.push_back(std::move(t));
  }
  const bool causal = forward_only(cap, n);
  matrix out(n, n);
  progress bar("flow", "rows", n, style);
  std::atomic<std::size_t> rows_done{0};
#pragma omp parallel if (n > 8)
  {
    layered_flow graph(cap, n, causal);
#pragma omp for schedule(dynamic, 1)
    for (std::ptrdiff_t r = static_cast<std::ptrdiff_t>(n) - 1; r >= 0; --r) {  // long rows first
      const auto i = static_cast<std::size_t>(r);
      for (std::size_t j = 0; j < (causal ? i + 1 : n); ++j)
        out(i, j) = static_cast<float>(causal ? graph.run(j, i, j, i) : graph.run(j, i, 0, n - 1));
      bar.update(++rows_done);
    }
  }
  bar.finish();
  return out;
}

matrix attention_flow_ref(const model_maps& m, const std::vector<std::size_t>& layers) {
  const std::size_t n = m.n, L = layers.size();
  if (L == 0) return identity_flow(n);
  // node (b, p): boundary b in [0, L] (0: the input tokens), token p
  max_flow graph((L + 1) * n);
  for (std::size_t b = 1; b <= L; ++b) {
    const std::vector<double> a = residual_map(m, layers[b - 1]);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (a[i * n + j] > 0.0) graph.add_edge((b - 1) * n + j, b * n + i, a[i * n + j]);
  }
  const std::vector<double> caps = graph.capacities();
  matrix out(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      graph.reset(caps);
      out(i, j) = static_cast<float>(graph.run(j, L * n + i));
    }
  return out;
}

}  // namespace attnviz
