// The family table's entries, one per file of this folder (model/family.h).
#pragma once

#include "model/family.h"

namespace attnviz {

extern const family_spec gpt2_family;   // families/gpt2.cpp
extern const family_spec bert_family;   // families/bert.cpp
extern const family_spec llama_family;  // families/llama.cpp
extern const family_spec bart_family;   // families/bart.cpp
extern const family_spec t5_family;     // families/t5.cpp
extern const family_spec gpt_neox_family;  // families/gpt_neox.cpp
extern const family_spec opt_family;       // families/opt.cpp
extern const family_spec phi_family;       // families/phi.cpp
extern const family_spec phi3_family;      // families/phi3.cpp
extern const family_spec gemma_family;     // families/gemma.cpp
extern const family_spec falcon_family;    // families/falcon.cpp
extern const family_spec gptj_family;      // families/gptj.cpp
extern const family_spec distilbert_family;  // families/distilbert.cpp
extern const family_spec vit_family;         // families/vit.cpp
extern const family_spec deit_family;        // families/deit.cpp
extern const family_spec dinov2_family;      // families/dinov2.cpp

}  // namespace attnviz
