// The weight file formats a model folder may hold, as a table: a format is one file in
// lib/model/formats/ that says whether a folder holds its files and reads them into a
// checkpoint (model/checkpoint.h) as memory-mapped tensor views. checkpoint::open asks them in
// order.
//
//   format        files                                                  file
//   safetensors   model.safetensors, or model.safetensors.index.json     formats/safetensors.cpp
//                 and the shards its weight_map names
//   gguf          a GGUF file (the path itself, or a folder's one *.gguf   formats/gguf.cpp
//                 without config.json): weights, hyper-parameters and
//                 tokenizer in one file
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

class checkpoint;

struct weight_format {
  std::string_view name;
  std::string_view files;  // what it reads, for messages ("model.safetensors nor …")
  // Whether `dir` holds this format's files (or is its file, for single-file formats).
  bool (*claims)(const std::filesystem::path& dir);
  // Maps the files and adds every tensor to `into`; input_error naming the file for anything
  // unreadable or inconsistent.
  void (*open)(const std::filesystem::path& dir, checkpoint& into);
};

const std::vector<const weight_format*>& weight_formats();

// "model.safetensors nor model.safetensors.index.json" (and the next formats' files), for the
// refusal of a folder no format claims.
std::string weight_format_files();

}  // namespace attnviz
