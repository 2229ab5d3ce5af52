// The call plan of a search answer: the results in call order (a producer before the
// calls it feeds) and a small SVG graph of which call feeds which input.

import { h, s, endpointHref } from './dom.js';

// Producer edges among the results: {from: producer id, to: consumer id, param}.
export function planEdges(results) {
  const ids = new Set(results.map((r) => r.id));
  const edges = [];
  for (const r of results)
    for (const n of r.needs || [])
      if (n.producer && ids.has(n.producer) && n.producer !== r.id)
        edges.push({ from: n.producer, to: r.id, param: n.param });
  return edges;
}

// Results in call order: a topological order of the producer edges, ties by rank.
// A cycle (two calls feeding each other) falls back to rank for what is left.
export function callOrder(results, edges) {
  const indeg = new Map(results.map((r) => [r.id, 0]));
  const out = new Map(results.map((r) => [r.id, []]));
  for (const e of edges) {
    indeg.set(e.to, indeg.get(e.to) + 1);
    out.get(e.from).push(e.to);
  }
  const byRank = [...results].sort((a, b) => a.rank - b.rank);
  const done = new Set();
  const order = [];
  while (order.length < results.length) {
    let next = byRank.find((r) => !done.has(r.id) && indeg.get(r.id) === 0);
    if (!next) next = byRank.find((r) => !done.has(r.id));
    done.add(next.id);
    order.push(next);
    for (const t of out.get(next.id)) indeg.set(t, indeg.get(t) - 1);
  }
  return order;
}

const NODE_W = 260, NODE_H = 44, GAP_X = 26, GAP_Y = 46;

function shorten(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

// The graph of the results that take part in an edge: layers top to bottom (a call's
// layer is one below its deepest producer), edges labelled with the input they feed.
export function planGraph(results, edges) {
  if (!edges.length) return null;
  const used = new Set(edges.flatMap((e) => [e.from, e.to]));
  const nodes = callOrder(results, edges).filter((r) => used.has(r.id));
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
