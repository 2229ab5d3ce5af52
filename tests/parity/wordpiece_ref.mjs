// Reference ids for the WordPiece parity test: the Hugging Face tokenizer of the npm package
// @huggingface/transformers, loading the local bge-small-en-v1.5 tokenizer.json.
// usage: node wordpiece_ref.mjs <tools/node dir> <model dir> <in.jsonl> <out.txt>
// in.jsonl holds one JSON string per line; out.txt gets the ids of tok.encode(text)
// ([CLS] ... [SEP], no truncation) for each, space-separated, one line per input.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [nodeDir, modelDir, inPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: wordpiece_ref.mjs <tools/node dir> <model dir> <in.jsonl> <out.txt>');
  process.exit(2);
}
// Resolve the package from tools/node, wherever this script lives.
const entry = createRequire(join(nodeDir, 'package.json')).resolve('@huggingface/transformers');
const { AutoTokenizer, env } = await import(pathToFileURL(entry).href);
env.allowRemoteModels = false;
const tok = await AutoTokenizer.from_pretrained(modelDir, { local_files_only: true });

const lines = readFileSync(inPath, 'utf8').split('\n');
const out = [];
for (const line of lines) {
  if (line.length === 0) continue;
  out.push(tok.encode(JSON.parse(line)).join(' '));
}
writeFileSync(outPath, out.join('\n') + '\n');
