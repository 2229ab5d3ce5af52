// Converts OpenAPI/Swagger documents to Postman Collection v2.1 files with Postman's own
// converter (npm openapi-to-postmanv2), for bench_postman.sh and the Postman e2e test.
//
//   node bench/postman_convert.mjs OUT_DIR SPEC_FILE...
//
// Writes OUT_DIR/<n>.postman_collection.json for the n-th SPEC_FILE (0-based) and prints
// "n<TAB>ok" or "n<TAB>error<TAB>reason" per file.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'tools', 'node', 'package.json'));
const Converter = require('openapi-to-postmanv2');

const [outDir, ...specs] = process.argv.slice(2);
if (!outDir || specs.length === 0) {
  console.error('usage: node postman_convert.mjs OUT_DIR SPEC_FILE...');
  process.exit(2);
}

function convert(file) {
  return new Promise((resolve) => {
    // 'file' input lets the converter follow $refs to neighbouring files
    Converter.convert({ type: 'file', data: file }, {}, (err, res) => {
      if (err) resolve({ error: String(err.message || err) });
      else if (!res || !res.result) resolve({ error: String(res && res.reason) });
      else resolve({ collection: res.output[0].data });
    });
  });
}

for (let i = 0; i < specs.length; i++) {
  let r;
  try {
    r = await convert(specs[i]);
  } catch (e) {
    r = { error: String(e && e.message ? e.message : e) };
  }
  if (r.error) {
    console.log(`${i}\terror\t${r.error.replace(/\s+/g, ' ').slice(0, 200)}`);
    continue;
  }
  writeFileSync(join(outDir, `${i}.postman_collection.json`), JSON.stringify(r.collection));
  console.log(`${i}\tok`);
}
