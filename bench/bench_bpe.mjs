// Baseline for bench/bench_bpe.sh: the npm package tiktoken encoding the same text file
// (encode_ordinary of its UTF-8 decoding), median throughput over REPEATS runs.
//
//   node bench/bench_bpe.mjs FILE [REPEATS]      (or --dump-descriptions CORPUS OUT)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const source = process.env.APIDEX_SOURCE_DIR || path.join(here, '..');
const nodeDir = path.join(source, 'tools', 'node');
const require = createRequire(path.join(nodeDir, 'package.json'));

if (process.argv[2] === '--dump-descriptions') {
  const { descriptionText } = await import(pathToFileURL(path.join(nodeDir, 'bpe_corpus.mjs')).href);
  fs.writeFileSync(process.argv[4], descriptionText(process.argv[3]));
  process.exit(0);
}

const { get_encoding } = require('tiktoken');
const file = process.argv[2];
const repeats = Number(process.argv[3] || 7);
const bytes = fs.readFileSync(file);
const text = new TextDecoder('utf-8').decode(bytes);
const enc = get_encoding('cl100k_base');
const rates = [];
let tokens = 0;
for (let r = 0; r < repeats; r++) {
  const t0 = process.hrtime.bigint();
  tokens = enc.encode_ordinary(text).length;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  rates.push(bytes.length / 1e6 / s);
}
rates.sort((a, b) => a - b);
const mid = rates.length >> 1;
const median = rates.length % 2 ? rates[mid] : (rates[mid - 1] + rates[mid]) / 2;
enc.free();
console.log(`npm tiktoken encode: ${median.toFixed(2)} MB/s median of ${repeats}, ${bytes.length} bytes, ${tokens} tokens`);
