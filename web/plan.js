// The plan of a search answer (the server's "plan": steps in call order, a producer before
// the calls it feeds): a list of the steps with where each input comes from, and a small
// SVG graph of which call feeds which input.

import { h, s, endpointHref, methodBadge } from './dom.js';

// Edges of the plan: {from: producer id, to: consumer id, param}, from each step's inputs
// that an earlier step gives.
export function planEdges(plan) {
  const edges = [];
  for (const step of plan)
    for (const i of step.inputs || [])
      if (i.from === 'step' && i.producer && i.producer !== step.id)
        edges.push({ from: i.producer, to: step.id, param: i.param });
  return edges;
}

// The plan as a list: each step in call order, and where each of its inputs comes from.
export function planList(plan) {
  const ol = h('ol', { class: 'plan-steps' });
  for (const step of plan) {
    const inputs = (step.inputs || []).map((i) => {
      const src = i.from === 'step' && plan[i.step - 1]
        ? h('a', { href: endpointHref(i.producer) }, `step ${i.step}: ${plan[i.step - 1].method} ${plan[i.step - 1].path}`)
        : (i.from === 'task' ? 'the task' : 'you (the caller)');
      return h('li', {}, h('code', {}, i.param), ' ← ', src);
    });
    ol.append(h('li', { class: 'plan-step', 'data-id': step.id, 'data-step': String(step.step) },
      h('div', { class: 'hit-head' },
        methodBadge(step.method),
        h('a', { href: endpointHref(step.id) }, step.path),
        h('span', { class: `role role-${step.role}` }, step.role)),
      h('div', { class: 'hit-sub' }, h('span', { class: 'api' }, step.api)),
      inputs.length ? h('ul', { class: 'needs', 'aria-label': 'where its inputs come from' }, inputs) : null));
  }
  return ol;
}

const NODE_W = 260, NODE_H = 44, GAP_X = 26, GAP_Y = 46;

function shorten(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

// The graph of the steps that take part in an edge: layers top to bottom (a call's
// layer is one below its deepest producer), edges labelled with the input they feed.
export function planGraph(plan, edges) {
  if (!edges.length) return null;
  const used = new Set(edges.flatMap((e) => [e.from, e.to]));
  const nodes = plan.filter((r) => used.has(r.id));
  const layer = new Map();
  for (const n of nodes) {
    let l = 0;
    for (const e of edges) if (e.to === n.id && layer.has(e.from)) l = Math.max(l, layer.get(e.from) + 1);
    layer.set(n.id, l);
  }
  const rows = [];
  for (const n of nodes) (rows[layer.get(n.id)] ||= []).push(n);
  const widest = Math.max(...rows.map((r) => r.length));
  const width = widest * NODE_W + (widest - 1) * GAP_X + 20;
  const height = rows.length * NODE_H + (rows.length - 1) * GAP_Y + 20;
  const pos = new Map();
  rows.forEach((row, y) => {
    const rowW = row.length * NODE_W + (row.length - 1) * GAP_X;
    const x0 = (width - rowW) / 2;
    row.forEach((n, i) => pos.set(n.id, { x: x0 + i * (NODE_W + GAP_X), y: 10 + y * (NODE_H + GAP_Y) }));
  });
  const desc = edges.map((e) => `${e.from} gives ${e.param} to ${e.to}`).join('; ');
  const svg = s('svg', {
    class: 'plan', viewBox: `0 0 ${width} ${height}`, role: 'group',
    'aria-labelledby': 'plan-title plan-desc', width, height,
  },
  s('title', { id: 'plan-title' }, 'Call plan'),
  s('desc', { id: 'plan-desc' }, desc),
  s('defs', {}, s('marker', {
    id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse',
  }, s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }))));
  for (const e of edges) {
    const a = pos.get(e.from), b = pos.get(e.to);
    const x1 = a.x + NODE_W / 2, y1 = a.y + NODE_H, x2 = b.x + NODE_W / 2, y2 = b.y;
    const back = y2 <= y1; // same layer or upwards (a cycle): curve around
    const my = back ? Math.max(y1, y2) + GAP_Y / 2 : (y1 + y2) / 2;
    const d = `M${x1},${y1} C${x1},${my} ${x2},${back ? my : my} ${x2},${y2}`;
    svg.append(s('path', {
      class: 'edge', d, 'marker-end': 'url(#arrow)', 'data-from': e.from, 'data-to': e.to, 'data-param': e.param,
    }, s('title', {}, `${e.param}: from ${e.from} to ${e.to}`)));
    svg.append(s('text', { class: 'edge-label', x: (x1 + x2) / 2 + 6, y: (y1 + y2) / 2 + 4 }, e.param));
  }
  for (const n of nodes) {
    const p = pos.get(n.id);
    const link = s('a', { href: endpointHref(n.id), class: 'node', 'data-id': n.id },
      s('title', {}, `${n.method} ${n.path} (${n.api})`),
      s('rect', { x: p.x, y: p.y, width: NODE_W, height: NODE_H, rx: 6 }),
      s('text', { x: p.x + 10, y: p.y + 18, class: 'node-method' }, n.method),
      s('text', { x: p.x + 10, y: p.y + 35, class: 'node-path' }, shorten(n.path, 30)));
    svg.append(link);
  }
  return h('figure', { class: 'plan-figure' }, svg,
    h('figcaption', {}, 'Call plan: an arrow goes from the call that produces a value to the call whose input it fills.'));
}
