// Reference token ids for the cl100k parity test (tests/unit/test_text_bpe_parity.c):
// draws strings from ../shared/corpus, encodes them with the npm package tiktoken and
// writes cases plus ids to a binary file the C test compares against text_bpe_encode.
//
//   node tools/node/bpe_parity.mjs --corpus DIR --out FILE [--count N] [--seed S] [--sweep]
//
// --sweep adds a code point sweep: every code point of planes 0-3 and 14 in contexts
// whose tokens change when the character's class (letter, number, White_Space, other)
// differs between PCRE2 and tiktoken's regex engine.
//
// File layout (little-endian): "APXBPE1\n", then per case: u8 kind length, kind,
// u8 flags (1 = special tokens allowed), u32 byte length, bytes, u32 id count, u32 ids.
// Invalid UTF-8 cases carry the raw bytes; tiktoken gets them decoded by TextDecoder
// (U+FFFD per maximal invalid subsequence), the behaviour text_bpe_encode reproduces.
import fs from 'node:fs';
import { get_encoding } from 'tiktoken';
import { drawCases } from './bpe_corpus.mjs';

function parseArgs(argv) {
  const a = { count: 10000, sweep: false, seed: undefined };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--corpus') a.corpus = argv[++i];
    else if (k === '--out') a.out = argv[++i];
    else if (k === '--count') a.count = Number(argv[++i]);
    else if (k === '--seed') a.seed = Number(argv[++i]);
    else if (k === '--sweep') a.sweep = true;
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.corpus || !a.out) throw new Error('usage: bpe_parity.mjs --corpus DIR --out FILE [--count N] [--seed S] [--sweep]');
  return a;
}

function* sweepCases() {
  const planes = [0, 1, 2, 3, 14];
  for (const plane of planes) {
    for (let base = plane << 16; base < (plane + 1) << 16; base += 64) {
      let s = '';
      for (let cp = base; cp < base + 64; cp++) {
        if (cp >= 0xd800 && cp < 0xe000) continue;
        const c = String.fromCodePoint(cp);
        s += `${c}'s\n${c}123\na   ${c}b\nx'${c}x\n`;
      }
      if (s) yield { kind: `sweep U+${base.toString(16).toUpperCase().padStart(4, '0')}`, text: s };
    }
  }
}

const args = parseArgs(process.argv);
const enc = get_encoding('cl100k_base');
const chunks = [Buffer.from('APXBPE1\n', 'latin1')];
let n = 0;
const emit = (c) => {
  const bytes = c.bytes ?? Buffer.from(c.text, 'utf8');
  const text = c.bytes ? new TextDecoder('utf-8').decode(c.bytes) : c.text;
  const ids = c.allowSpecial ? enc.encode(text, 'all') : enc.encode_ordinary(text);
  const kind = Buffer.from(c.kind, 'latin1');
  const head = Buffer.alloc(1 + kind.length + 1 + 4);
  head.writeUInt8(kind.length, 0);
  kind.copy(head, 1);
  head.writeUInt8(c.allowSpecial ? 1 : 0, 1 + kind.length);
  head.writeUInt32LE(bytes.length, 2 + kind.length);
  const idbuf = Buffer.alloc(4 + 4 * ids.length);
  idbuf.writeUInt32LE(ids.length, 0);
  for (let i = 0; i < ids.length; i++) idbuf.writeUInt32LE(ids[i], 4 + 4 * i);
  chunks.push(head, bytes, idbuf);
  n++;
};
for (const c of drawCases(args.corpus, args.count, args.seed)) emit(c);
if (args.sweep) for (const c of sweepCases()) emit(c);
enc.free();
fs.writeFileSync(args.out, Buffer.concat(chunks));
process.stderr.write(`bpe_parity: ${n} cases written to ${args.out}\n`);
