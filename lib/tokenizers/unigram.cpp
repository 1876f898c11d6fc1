#include "tokenizers/unigram.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "error.h"

namespace attnviz {

namespace {

// SentencePiece's character length from the lead byte (continuation or bad bytes: 1).
std::size_t char_length(unsigned char lead) {
  if (lead < 0xc0) return 1;
  if (lead < 0xe0) return 2;
  if (lead < 0xf0) return 3;
  if (lead < 0xf8) return 4;
  return 1;
}

constexpr float unknown_penalty = 10.0f;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The byte of a "<0xNN>" piece (upper-case hex), or −1.
int byte_piece_value(const std::string& p) {
  if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>') return -1;
  const int hi = hex_digit(p[3]), lo = hex_digit(p[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

}  // namespace

unigram_model::unigram_model(const std::vector<sp_piece>& pieces, bool byte_fallback,
                             const std::string& source)
    : pieces_(pieces), byte_fallback_(byte_fallback) {
  bytes_.fill(-1);
  terminal_.push_back(-1);
  min_score_ = std::numeric_limits<float>::max();
  max_score_ = std::numeric_limits<float>::lowest();
  std::unordered_map<std::string, std::int64_t> seen;
  for (std::size_t i = 0; i < pieces_.size(); ++i) {
    const sp_piece& p = pieces_[i];
    const auto id = static_cast<std::int64_t>(i);
    if (p.piece.empty()) throw input_error(source, fmt::format("piece {} is empty", i));
    if (!seen.emplace(p.piece, id).second)
      throw input_error(source, fmt::format("piece {} '{}' repeats piece {}", i, p.piece,
                                            seen[p.piece]));
    switch (p.type) {
      case sp_piece_type::normal:
        min_score_ = std::min(min_score_, p.score);
        max_score_ = std::max(max_score_, p.score);
        insert(p.piece, id);
        break;
      case sp_piece_type::user_defined:
        user_defined_.push_back(p.piece);
        insert(p.piece, id);
        break;
      case sp_piece_type::unused: insert(p.piece, id); break;
      case sp_piece_type::unknown:
        if (unk_id_ >= 0)
          throw input_error(source, fmt::format("pieces {} and {} are both the unknown piece",
                                                unk_id_, i));
        unk_id_ = id;
        break;
      case sp_piece_type::byte: {
        const int v = byte_piece_value(p.piece);
        if (v < 0)
          throw input_error(source, fmt::format("piece {} '{}' has the byte type but is not "
                                                "<0xNN>",
                                                i, p.piece));
        bytes_[v] = id;
        break;
      }
      case sp_piece_type::control: break;
    }
  }
  if (unk_id_ < 0) throw input_error(source, "has no unknown piece (type UNKNOWN)");
  if (min_score_ > max_score_) min_score_ = max_score_ = 0.0f;  // no normal pieces
  if (byte_fallback_)
    for (unsigned b = 0; b < 256; ++b)
      if (bytes_[b] < 0)
        throw input_error(source, fmt::format("byte_fallback is on but the piece <0x{:02X}> is "
                                              "missing",
                                              b));
}

void unigram_model::insert(const std::string& piece, std::int64_t id) {
  std::int32_t node = 0;
  for (const char ch : piece) {
    const auto key = (static_cast<std::uint64_t>(node) << 8) | static_cast<unsigned char>(ch);
    const auto it = edges_.find(key);
    if (it != edges_.end()) {
      node = it->second;
      continue;
    }
    const auto next = static_cast<std::int32_t>(terminal_.size());
    terminal_.push_back(-1);
    edges_.emplace(key, next);
    node = next;
  }
  terminal_[static_cast<std::size_t>(node)] = id;
}

std::int32_t unigram_model::child(std::int32_t node, unsigned char byte) const {
  const auto it = edges_.find((static_cast<std::uint64_t>(node) << 8) | byte);
  return it == edges_.end() ? -1 : it->second;
}

std::vector<unigram_model::cut> unigram_model::viterbi(std::string_view text) const {
  struct best_end {
    float score = 0.0f;
    std::int64_t start = -1;
    std::int64_t id = -1;
  };
  const std::size_t n = text.size();
  std::vector<best_end> best(n + 1);
  const float unk_score = min_score_ - unknown_penalty;
  for (std::size_t start = 0; start < n;) {
    const float here = best[start].score;
    const std::size_t one = std::min(char_length(static_cast<unsigned char>(text[start])), n - start);
    bool single = false;
    std::int32_t node = 0;
    for (std::size_t end = start; end < n;) {
      node = child(node, static_cast<unsigned char>(text[end++]));
      if (node < 0) break;
      const std::int64_t id = terminal_[static_cast<std::size_t>(node)];
      if (id < 0) continue;
      const sp_piece& p = pieces_[static_cast<std::size_t>(id)];
      if (p.type == sp_piece_type::unused) continue;
      const double score = p.type == sp_piece_type::user_defined
                               ? static_cast<double>(static_cast<float>(end - start) * max_score_) - 0.1
                               : static_cast<double>(p.score);
      const double candidate = score + here;
      best_end& target = best[end];
      if (target.start < 0 || candidate > target.score)
        target = {static_cast<float>(candidate), static_cast<std::int64_t>(start), id};
      if (end - start == one) single = true;
    }
    if (!single) {
      best_end& target = best[start + one];
      const float candidate = unk_score + here;
      if (target.start < 0 || candidate > target.score)
        target = {candidate, static_cast<std::int64_t>(start), unk_id_};
    }
    start += one;
  }
  std::vector<cut> cuts;
  for (std::size_t end = n; end > 0;) {
    const best_end& b = best[end];
    const auto start = static_cast<std::size_t>(b.start);
    cuts.push_back({start, end, b.id});
    end = start;
  }
  std::reverse(cuts.begin(), cuts.end());
  return cuts;
}

void unigram_model::encode(std::string_view text, std::vector<std::int64_t>& ids,
                           std::vector<std::string>& tokens) const {
  const std::vector<cut> cuts = viterbi(text);
  for (std::size_t k = 0; k < cuts.size(); ++k) {
    if (cuts[k].id != unk_id_) {
      ids.push_back(cuts[k].id);
      tokens.emplace_back(text.substr(cuts[k].start, cuts[k].end - cuts[k].start));
      continue;
    }
    std::size_t last = k;  // a run of unknowns is one
    while (last + 1 < cuts.size() && cuts[last + 1].id == unk_id_) ++last;
    const std::string_view surface = text.substr(cuts[k].start, cuts[last].end - cuts[k].start);
    k = last;
    if (!byte_fallback_) {
      ids.push_back(unk_id_);
      tokens.emplace_back(surface);
      continue;
    }
    for (const char ch : surface) {
      const std::int64_t id = bytes_[static_cast<unsigned char>(ch)];
      ids.push_back(id);
      tokens.push_back(pieces_[static_cast<std::size_t>(id)].piece);
    }
  }
}

}  // namespace attnviz
