// The GGUF files tests/data/gguf_writer.py writes (the models of make_gguf_models.py, seed 0,
// and the blocks fixture with metadata of every value type), read back by npm's
// @huggingface/gguf, an independent reader of the format: tests/data/gguf/npm_readback.json,
// which e2e.gguf compares with what the writer writes and what attn-viz reads.
//
//   cd tests/data && npm install --no-save @huggingface/gguf
//   /usr/bin/python3 make_gguf_models.py /tmp/gguf-npm && node check_gguf_with_npm.mjs /tmp/gguf-npm
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { gguf, GGMLQuantizationType, GGUFValueType } from "@huggingface/gguf";

const dir = process.argv[2];
const files = ["llama_gqa.F32.gguf", "llama_gqa.F16.gguf", "llama_gqa.Q8_0.gguf",
               "llama_gqa.Q4_0.gguf", "llama_gqa.Q4_K.gguf", "llama_gqa.Q6_K.gguf"];
// 64-bit integers beyond 2^53 as decimal strings, so that no digit is lost
const plain = (v) => (typeof v === "bigint" ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString())
                      : Array.isArray(v) ? v.map(plain) : v);
const out = { producer: "@huggingface/gguf " + JSON.parse(fs.readFileSync(
  new URL("./node_modules/@huggingface/gguf/package.json", import.meta.url))).version,
  files: {} };
for (const f of [...files, "blocks.gguf"]) {
  const where = f === "blocks.gguf" ? new URL("./gguf/", import.meta.url).pathname : dir;
  const { typedMetadata, tensorInfos } = await gguf(path.join(where, f),
                                                    { allowLocalFile: true, typedMetadata: true });
  out.files[f] = {
    sha256: crypto.createHash("sha256").update(fs.readFileSync(path.join(where, f))).digest("hex"),
    metadata: Object.fromEntries(Object.entries(typedMetadata).map(([k, v]) => [k, {
      type: GGUFValueType[v.type], value: plain(v.value),
      ...(v.subType !== undefined ? { item_type: GGUFValueType[v.subType] } : {}) }])),
    tensors: tensorInfos.map((t) => ({ name: t.name, dims: t.shape.map(Number),
                                        type: GGMLQuantizationType[t.dtype],
                                        offset: Number(t.offset) })),
  };
}
fs.writeFileSync(new URL("./gguf/npm_readback.json", import.meta.url),
                 JSON.stringify(out, null, 1) + "\n");
console.log(`${files.length} files read back by ${out.producer}`);
