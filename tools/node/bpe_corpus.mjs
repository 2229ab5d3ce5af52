// Draws test strings for the cl100k parity test and benchmark from ../shared/corpus:
// descriptions, paths, whole operations, and deterministic variants of them (non-ASCII,
// emoji, long digit and whitespace runs, mixed newlines, invalid UTF-8, special tokens).
import fs from 'node:fs';
import path from 'node:path';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);
const MAX_CHARS = 12000; // longest drawn string, in UTF-16 units (keeps the test quick)

/** A small deterministic PRNG (mulberry32), so every run draws the same strings. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (arr) => arr[Math.floor(next() * arr.length)],
  };
}

/** Every spec file under dir/specs, sorted (the order must not depend on the file system). */
export function specFiles(corpusDir) {
  const out = [];
  const walk = (d) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = fs.statSync(p);
      if (st.isDirectory()) walk(p);
      else if (/\.(json|ya?ml)$/.test(name)) out.push(p);
    }
  };
  walk(path.join(corpusDir, 'specs'));
  return out;
}

// Cuts s to at most max UTF-16 units without splitting a surrogate pair.
function clip(s, max = MAX_CHARS) {
  if (s.length <= max) return s;
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c < 0xdc00) end--;
  return s.slice(0, end);
}

// Descriptions, paths and operations of a parsed JSON spec.
function fromJson(doc, out) {
  const stack = [doc];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    for (const [k, v] of Object.entries(node)) {
      if (typeof v === 'string' && (k === 'description' || k === 'summary' || k === 'title')) {
        if (v.trim()) out.description.push(v);
      } else if (v && typeof v === 'object') stack.push(v);
    }
  }
  if (doc && doc.paths && typeof doc.paths === 'object') {
    for (const [p, item] of Object.entries(doc.paths)) {
      out.path.push(p);
      if (!item || typeof item !== 'object') continue;
      for (const [m, op] of Object.entries(item)) {
        if (METHODS.has(m)) out.operation.push(JSON.stringify({ [m]: op }, null, 2));
      }
    }
  }
}

// The same from YAML text, by indentation (no YAML parser in tools/node): scalar and
// block-scalar descriptions, path keys, and each operation's block as YAML text.
function fromYaml(text, out) {
  const lines = text.split(/\r?\n/);
  const indentOf = (l) => l.length - l.trimStart().length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m = /^(\s*)(description|summary|title):\s*(.*)$/.exec(line);
    if (m) {
      const ind = m[1].length;
      let v = m[3];
      if (/^[|>][-+]?\s*$/.test(v)) {
        const block = [];
        for (let j = i + 1; j < lines.length && (lines[j].trim() === '' || indentOf(lines[j]) > ind); j++)
          block.push(lines[j].trim());
        v = block.join(m[3][0] === '|' ? '\n' : ' ').trim();
      } else {
        v = v.replace(/^(['"])(.*)\1$/, '$2');
      }
      if (v.trim()) out.description.push(v);
      continue;
    }
    m = /^(\s+)['"]?(\/[^'"]*?)['"]?:\s*$/.exec(line);
    if (m && m[1].length <= 4) out.path.push(m[2]);
    m = /^(\s+)(get|put|post|delete|patch|options|head|trace):\s*$/.exec(line);
    if (m) {
      const ind = m[1].length;
      let j = i + 1;
      while (j < lines.length && (lines[j].trim() === '' || indentOf(lines[j]) > ind)) j++;
      out.operation.push(lines.slice(i, j).join('\n'));
    }
  }
}

/** All descriptions, paths and operations of the corpus, in a fixed order. */
export function harvest(corpusDir) {
  const out = { description: [], path: [], operation: [] };
  for (const f of specFiles(corpusDir)) {
    const text = fs.readFileSync(f, 'utf8');
    if (f.endsWith('.json')) {
      try {
        fromJson(JSON.parse(text), out);
      } catch {
        fromYaml(text, out);
      }
    } else fromYaml(text, out);
  }
  return out;
}

// Fixed material the variants mix in: scripts, emoji (ZWJ sequences, flags, skin tones),
// Unicode whitespace (U+180E is not White_Space in tiktoken), contractions in odd cases.
const FOREIGN = [
  'Zurückgegebene Objekte enthalten Größenangaben', 'réponse renvoyée à l’élève', 'año señal niño',
  'Получить список пользователей', 'Ελληνικά κείμενα', 'مرحبا بالعالم', 'שלום עולם', 'नमस्ते दुनिया',
  '获取用户列表并返回结果', 'ユーザー一覧を取得します', '사용자 목록을 반환합니다', 'ภาษาไทยไม่มีช่องว่าง',
  'Tiếng Việt có dấu', 'ქართული ენა', 'Հայերեն', 'ᠮᠣᠩᠭᠣᠯ', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙', 'ﬁle ﬂow ǅemo',
  'e\u0301te\u0301 combining', '١٢٣٤٥ ٦٧٨', '१२३४५', '①②③ ⅠⅡⅢ ½¾', '𒀀𒀁 cuneiform', '𓀀𓀁 hieroglyph',
  'Ꭳ Cherokee', '\u{1C89}\u{1C8A}\u{A7CB}\u{105C0}\u{10D4A} new letters', '\u{1D2C0}\u{1D2C1}\u{116D0} new digits',
  '\u{31350}\u{2EBF0}\u{13460} CJK and hieroglyphs',
];
const EMOJI = [
  '😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇩🇪', '🇯🇵', '❤️', '✅', '🚀', '🤖', '🧑🏿‍💻', '©️', '1️⃣', '🫠', '🪿',
];
const SPACES = [' ', '\t', '\u00a0', '\u3000', '\u2003', '\u180e', '\u2028', '\u0085', '\u200b', '\f', '\v'];
const NEWLINES = ['\n', '\r\n', '\r', '\n\n', '\r\r\n', '\n \n', '\u2029'];
const CONTRACTIONS = ["'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'ve", "'VE", "'m", "'M", "'ll", "'LL",
  "'lL", "'d", "'D", "'ſ", "'\u212a", "’s"];
const SPECIALS = ['<|endoftext|>', '<|fim_prefix|>', '<|fim_middle|>', '<|fim_suffix|>', '<|endofprompt|>',
  '<|endoftext', '<|im_start|>'];

function insertAt(r, s, piece) {
  const chars = Array.from(s);
  const at = r.int(chars.length + 1);
  chars.splice(at, 0, piece);
  return chars.join('');
}

function repeat(r, alphabet, n) {
  let s = '';
  for (let i = 0; i < n; i++) s += r.pick(alphabet);
  return s;
}

// Variant builders: each takes a PRNG and a base string drawn from the corpus.
const VARIANTS = {
  nonascii: (r, s) => {
    let t = s;
    for (let k = 1 + r.int(3); k > 0; k--) t = insertAt(r, t, ' ' + r.pick(FOREIGN) + ' ');
    // Accents and fullwidth forms on some letters.
    return Array.from(t).map((c) => {
      const x = r.next();
      if (x < 0.05 && /[a-z]/.test(c)) return c + '\u0301';
      if (x < 0.08 && /[A-Za-z0-9]/.test(c)) return String.fromCodePoint(c.codePointAt(0) + 0xfee0);
      return c;
    }).join('');
  },
  emoji: (r, s) => {
    let t = s;
    for (let k = 1 + r.int(6); k > 0; k--) t = insertAt(r, t, repeat(r, EMOJI, 1 + r.int(4)) + (r.next() < 0.5 ? ' ' : ''));
    return t;
  },
  digits: (r, s) => {
    const len = r.pick([4, 7, 10, 33, 100, 1001, 4000]);
    const run = repeat(r, '0123456789'.split(''), len);
    const glue = r.pick(['', ' ', '-', '.', ',', 'x', 'v', '$', '１２３']);
    return insertAt(r, s, glue + run + glue);
  },
  whitespace: (r, s) => {
    let t = s;
    for (let k = 1 + r.int(3); k > 0; k--) {
      const run = repeat(r, r.next() < 0.5 ? [' '] : SPACES, 1 + r.int(r.next() < 0.2 ? 600 : 12));
      t = insertAt(r, t, run);
    }
    return r.next() < 0.3 ? t + repeat(r, SPACES, 1 + r.int(5)) : t;
  },
  newlines: (r, s) => {
    const words = s.split(' ');
    return words.map((w) => (r.next() < 0.2 ? w + repeat(r, NEWLINES, 1 + r.int(3)) + repeat(r, [' ', '\t', ''], r.int(5)) : w)).join(' ');
  },
  contractions: (r, s) => {
    let t = s;
    for (let k = 1 + r.int(4); k > 0; k--) t = insertAt(r, t, r.pick(CONTRACTIONS) + r.pick(['', ' ', 'x', '1', '\n']));
    return t;
  },
  special: (r, s) => {
    let t = s;
    for (let k = 1 + r.int(3); k > 0; k--) t = insertAt(r, t, r.pick(SPECIALS));
    return t;
  },
  long_run: (r, s) => {
    const unit = r.pick(['a', 'ab', 'é', '😀', '!', '-', '=', '.', 'A1', '\u00a0', 'x ', '\t']);
    return s.slice(0, 200) + unit.repeat(150 + r.int(900)) + s.slice(0, 50);
  },
};

/**
 * Draws count cases: {kind, text} or {kind, bytes} (invalid UTF-8) with allowSpecial.
 * About a third come straight from the corpus, the rest are variants of corpus strings.
 */
export function drawCases(corpusDir, count, seed = 20240611) {
  const pool = harvest(corpusDir);
  for (const k of Object.keys(pool)) if (pool[k].length === 0) throw new Error(`no ${k} found in ${corpusDir}`);
  const r = prng(seed);
  const cases = [];
  const base = () => clip(r.pick(r.next() < 0.7 ? pool.description : pool.operation), 3000);
  const variantNames = Object.keys(VARIANTS);
  for (let i = 0; cases.length < count; i++) {
    const slot = i % 12;
    if (slot < 3) cases.push({ kind: 'description', text: clip(r.pick(pool.description)) });
    else if (slot === 3) cases.push({ kind: 'path', text: r.pick(pool.path) });
    else if (slot === 4) cases.push({ kind: 'operation', text: clip(r.pick(pool.operation)) });
    else if (slot === 5) {
      // Invalid UTF-8: corpus bytes with stray, truncated and overlong sequences spliced in.
      const b = Buffer.from(base(), 'utf8');
      const bad = [[0xff], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xf4, 0x90, 0x80, 0x80], [0xef, 0xbf, 0xbd]];
      const parts = [];
      let pos = 0;
      for (let k = 1 + r.int(4); k > 0; k--) {
        const at = pos + r.int(Math.max(1, b.length - pos));
        parts.push(b.subarray(pos, at), Buffer.from(r.pick(bad)));
        pos = at;
      }
      parts.push(b.subarray(pos));
      cases.push({ kind: 'invalid_utf8', bytes: Buffer.concat(parts) });
    } else {
      const name = variantNames[(slot - 6 + Math.floor(i / 12)) % variantNames.length];
      const text = clip(VARIANTS[name](r, base()));
      cases.push({ kind: name, text, allowSpecial: name === 'special' && r.next() < 0.5 });
    }
  }
  return cases;
}

/** The corpus descriptions joined by blank lines: the benchmark text. */
export function descriptionText(corpusDir) {
  return harvest(corpusDir).description.join('\n\n');
}
