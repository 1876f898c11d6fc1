// The ids npm's @huggingface/tokenizers (Hugging Face's tokenizer.json in JavaScript) gives for
// tests/data/tokenizers/unigram_json/tokenizer.json (make_unigram_fixtures.py writes it) on the
// texts beside it: tests/data/tokenizers/unigram_json/ids.json.
//   cd tests/data && npm install --no-save @huggingface/tokenizers && node make_unigram_fixtures.mjs
import fs from "fs";
import path from "path";
import { fileURLToPath } from "url";
import { Tokenizer } from "@huggingface/tokenizers";

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = path.join(here, "tokenizers", "unigram_json");
const json = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer.json"), "utf8"));
const tokenizer = new Tokenizer(json, {});
const { texts } = JSON.parse(fs.readFileSync(path.join(dir, "texts.json"), "utf8"));
const pkg = JSON.parse(fs.readFileSync(path.join(here, "node_modules", "@huggingface", "tokenizers", "package.json"), "utf8"));
const ids = texts.map((t) => tokenizer.encode(t).ids);
const tokens = texts.map((t) => tokenizer.encode(t).tokens);
fs.writeFileSync(path.join(dir, "ids.json"),
  JSON.stringify({ producer: `@huggingface/tokenizers ${pkg.version}`, texts, ids, tokens }, null, 0) + "\n");
console.log(`${texts.length} texts`);
