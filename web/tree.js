// A JSON Schema as a collapsible tree (<details>, so the keyboard and screen readers know
// it). $refs are followed through the endpoint's `schemas` map; a $ref already open above
// is marked as a cycle instead of being opened again.

import { h, append } from './dom.js';
import { rich } from './markup.js';

const MAX_DEPTH = 14;

function refName(ref) {
  const i = ref.lastIndexOf('/');
  return i >= 0 ? ref.slice(i + 1) : ref;
}

function typeOf(schema) {
  if (!schema || typeof schema !== 'object') return '';
  let t = Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type || '';
  if (!t && schema.properties) t = 'object';
  if (t === 'array' && schema.items) {
    const it = schema.items.$ref ? refName(schema.items.$ref) : typeOf(schema.items);
    t = `array of ${it || 'any'}`;
  }
  if (schema.format) t += ` (${schema.format})`;
  return t;
}

function facts(schema) {
  const out = [];
  if (schema.enum) out.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  for (const k of ['minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems'])
    if (schema[k] !== undefined) out.push(`${k} ${schema[k]}`);
  if (schema.nullable) out.push('nullable');
  if (schema.readOnly) out.push('read-only');
  if (schema.deprecated) out.push('deprecated');
  return out;
}

// One node: label (property name), schema, whether required, the schemas map, the refs
// open on the way here.
function node(label, schema, required, schemas, open, depth) {
  const head = [];
  if (label !== null) head.push(h('span', { class: 'prop' }, label));
  if (required) head.push(h('span', { class: 'req', title: 'required' }, 'required'));
  let target = schema || {};
  let refLabel = null;
  if (target.$ref) {
    refLabel = refName(target.$ref);
    if (open.includes(target.$ref)) {
      head.push(h('span', { class: 'type' }, refLabel),
        h('span', { class: 'cycle', title: 'this schema contains itself here' }, '↺ cycle'));
      return h('div', { class: 'leaf' }, head);
    }
    const resolved = schemas[target.$ref];
    if (!resolved) {
      head.push(h('span', { class: 'type' }, refLabel));
      return h('div', { class: 'leaf' }, head);
    }
    open = [...open, target.$ref];
    target = resolved;
  }
  const type = typeOf(target);
  head.push(h('span', { class: 'type' }, refLabel ? `${refLabel}${type ? ` · ${type}` : ''}` : type || 'any'));
  const f = facts(target);
  if (f.length) head.push(h('span', { class: 'facts' }, f.join(' · ')));
  const text = rich(target);
  if (!hasChildren(target) || depth >= MAX_DEPTH) return h('div', { class: 'leaf' }, head, text);
  // Children are built when a node is first opened: a large API's schemas reach each other
  // through many paths, and unrolling them all up front would never end.
  const kids = h('div', { class: 'kids' });
  const d = h('details', {}, h('summary', {}, head), text, kids);
  const build = () => { if (!kids.firstChild) append(kids, children(target, schemas, open, depth)); };
  if (depth < 1) {
    build();
    d.open = true;
  }
  d.addEventListener('toggle', () => { if (d.open) build(); });
  return d;
}

function hasChildren(schema) {
  return !!((schema.properties && Object.keys(schema.properties).length) || schema.items ||
    ['allOf', 'oneOf', 'anyOf'].some((k) => Array.isArray(schema[k]) && schema[k].length) ||
    (schema.additionalProperties && typeof schema.additionalProperties === 'object'));
}

function children(schema, schemas, open, depth) {
  const out = [];
  const req = new Set(schema.required || []);
  for (const [k, v] of Object.entries(schema.properties || {}))
    out.push(node(k, v, req.has(k), schemas, open, depth + 1));
  if (schema.items) out.push(node('[items]', schema.items, false, schemas, open, depth + 1));
  for (const comb of ['allOf', 'oneOf', 'anyOf'])
    (schema[comb] || []).forEach((v, i) => out.push(node(`${comb} ${i + 1}`, v, false, schemas, open, depth + 1)));
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
    out.push(node('{any key}', schema.additionalProperties, false, schemas, open, depth + 1));
  return out;
}

// The tree of a schema at the top of a section.
export function schemaTree(schema, schemas, label) {
  return h('div', { class: 'tree' }, node(label ?? null, schema, false, schemas || {}, [], 0));
}
