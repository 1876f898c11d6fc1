// SentencePiece model files (spiece.model, Marian's source.spm / target.spm), read directly: a
// protobuf ModelProto, of which these fields are used (numbers as in sentencepiece_model.proto,
// checked against Debian's python3-sentencepiece; other fields are skipped by their wire type):
//
//   ModelProto       1 pieces (repeated SentencePiece), 2 trainer_spec, 3 normalizer_spec
//   SentencePiece    1 piece (string), 2 score (float), 3 type (NORMAL 1, UNKNOWN 2, CONTROL 3,
//                    USER_DEFINED 4, UNUSED 5, BYTE 6; default NORMAL)
//   TrainerSpec      3 model_type (UNIGRAM 1, BPE 2, WORD 3, CHAR 4; default UNIGRAM),
//                    24 treat_whitespace_as_suffix, 35 byte_fallback, 40 unk_id (0), 41 bos_id
//                    (1), 42 eos_id (2), 43 pad_id (−1)
//   NormalizerSpec   1 name, 2 precompiled_charsmap (bytes), 3 add_dummy_prefix (true),
//                    4 remove_extra_whitespaces (true), 5 escape_whitespaces (true)
//
// Wire format: each field is a varint key (number << 3 | wire type) and a value: varint (0),
// 64-bit (1), length-delimited (2: varint length, bytes), 32-bit (5, little-endian). Any length
// or count past the end, a bad wire type or varint is an input_error at its byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

enum class sp_piece_type : std::uint8_t {
  normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6
};

struct sp_piece {
  std::string piece;
  float score = 0.0f;
  sp_piece_type type = sp_piece_type::normal;
};

struct sp_model_file {
  std::vector<sp_piece> pieces;  // id = index
  int model_type = 1;            // 1 Unigram, 2 BPE, 3 word, 4 char
  bool byte_fallback = false, treat_whitespace_as_suffix = false;
  std::int64_t unk_id = 0, bos_id = 1, eos_id = 2, pad_id = -1;
  std::string normalizer_name;
  std::string charsmap;  // precompiled_charsmap: empty for identity
  bool add_dummy_prefix = true, remove_extra_whitespaces = true, escape_whitespaces = true;
};

// `bytes` read as a ModelProto (`path` names it in errors).
sp_model_file parse_sentencepiece_file(std::string_view bytes, const std::string& path);
sp_model_file read_sentencepiece_file(const std::string& path);

}  // namespace attnviz
