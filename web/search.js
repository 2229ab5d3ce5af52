// The search view: a task box answered as you type (debounced), ranked or adaptive, with
// API, tag and method filters; results by relevance, and beside them the plan (call order,
// where each input comes from) listed and drawn.

import { get } from './api.js';
import { h, clear, methodBadge, announce, debounce, errorBox, endpointHref, fill } from './dom.js';
import { planEdges, planGraph, planList } from './plan.js';
import { catalog } from './catalog.js';

function option(value, label, selected) {
  return h('option', { value, selected: value === selected }, label);
}

function select(id, label, options, value, onchange) {
  return h('div', { class: 'field' },
    h('label', { for: id }, label),
    h('select', { id, onchange }, options.map(([v, l]) => option(v, l, value))));
}

export async function searchView(main, params) {
  const state = {
    q: params.get('q') || '',
    mode: params.get('mode') === 'ranked' ? 'ranked' : 'adaptive',
    api: params.get('api') || '',
    tag: params.get('tag') || '',
    method: params.get('method') || '',
  };
  const cat = await catalog().catch(() => ({ apis: [] }));
  const apis = cat.apis || [];
  const tagsOf = () => {
    const set = new Set();
    for (const a of apis)
      if (!state.api || a.id === state.api) for (const t of a.tags || []) set.add(t.name);
    return [...set].sort((a, b) => a.localeCompare(b));
  };
  const results = h('section', { class: 'results', 'aria-labelledby': 'results-title' });
  const box = h('input', {
    id: 'task', type: 'search', value: state.q, autocomplete: 'off', spellcheck: 'false',
    placeholder: 'What do you want to do? e.g. get the reviews of the most popular movie',
    'aria-describedby': 'task-help',
  });
  const tagSlot = h('div', { class: 'slot' });
  const renderTags = () => {
    const tags = tagsOf();
    if (state.tag && !tags.includes(state.tag)) state.tag = '';
    fill(tagSlot, select('f-tag', 'Tag', [['', 'any tag'], ...tags.map((t) => [t, t])], state.tag,
      (e) => { state.tag = e.target.value; run(); }));
  };
  const form = h('form', { class: 'search', role: 'search', onsubmit: (e) => { e.preventDefault(); run(); } },
    h('label', { for: 'task', class: 'big' }, 'Task'),
    box,
    h('p', { id: 'task-help', class: 'hint' }, 'Results appear as you type. ↓ moves to the results, / comes back here.'),
    h('div', { class: 'filters' },
      select('f-mode', 'Answer', [['adaptive', 'adaptive: what the task needs'], ['ranked', 'ranked: top 10']], state.mode,
        (e) => { state.mode = e.target.value; run(); }),
      select('f-api', 'API', [['', 'all APIs'], ...apis.map((a) => [a.id, `${a.title || a.id} (${a.id})`])], state.api,
        (e) => { state.api = e.target.value; renderTags(); run(); }),
      tagSlot,
      select('f-method', 'Method', [['', 'any method'], ...['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => [m, m])],
        state.method, (e) => { state.method = e.target.value; run(); })));
  renderTags();
  fill(main, h('h1', { class: 'sr-only' }, 'Search'), form, results);

  let seq = 0;
  async function run() {
    const q = box.value.trim();
    state.q = q;
    const hash = new URLSearchParams(Object.entries(state).filter(([, v]) => v));
    history.replaceState(null, '', `#/search?${hash}`);
    if (!q) {
      fill(results, h('h2', { id: 'results-title', class: 'sr-only' }, 'Results'),
        h('p', { class: 'hint' }, `${apis.length} APIs, ${cat.n_operations ?? '?'} operations indexed. Type a task to find the endpoints it needs.`));
      return;
    }
    const mine = ++seq;
    const args = [['q', q]];
    if (state.mode === 'adaptive') args.push(['adaptive', 'true']);
    else args.push(['k', '10']);
    if (state.api) args.push(['api', state.api]);
    if (state.tag) args.push(['tag', state.tag]);
    if (state.method) args.push(['method', state.method]);
    results.setAttribute('aria-busy', 'true');
    try {
      const res = await get('/v1/search', args);
      if (mine !== seq) return;
      showResults(res);
    } catch (err) {
      if (mine !== seq) return;
      fill(results, errorBox(err));
    } finally {
      if (mine === seq) results.removeAttribute('aria-busy');
    }
  }

  // How well the registry fits the task: the server's words for a weak match or none.
  function matchNote(res) {
    if (!res.match || res.match === 'strong') return null;
    return h('p', { class: `match match-${res.match}`, role: 'status' }, res.note || '');
  }

  function confidenceBadge(r) {
    if (typeof r.confidence !== 'number') return null;
    return h('span', { class: 'confidence', title: 'calibrated confidence that this endpoint does (part of) the task' },
      `${Math.round(r.confidence * 100)}% confidence`);
  }

  function showResults(res) {
    const list = res.results || [];
    const plan = res.plan || [];
    const edges = planEdges(plan);
    const byId = new Map(list.map((r) => [r.id, r]));
    for (const step of plan) if (!byId.has(step.id)) byId.set(step.id, step);
    clear(results);
    results.append(h('h2', { id: 'results-title' },
      `${list.length} endpoint${list.length === 1 ? '' : 's'}`,
      h('span', { class: 'sub' }, ` · ${state.mode === 'adaptive' ? 'adaptive answer' : 'ranked'}, by relevance · ${res.elapsed_ms} ms`)));
    const note = matchNote(res);
    if (note) results.append(note);
    if (!list.length) {
      results.append(h('p', {}, 'Nothing matches. Try other words, or fewer filters.'));
      announce('no results');
      return;
    }
    const ol = h('ol', { class: 'hits' });
    list.forEach((r) => {
      const needs = (r.needs || []).map((n) => {
        const p = byId.get(n.producer);
        return h('li', {}, h('code', {}, n.param), ' ← ',
          n.producer ? h('a', { href: endpointHref(n.producer) }, p ? `${p.method} ${p.path}` : n.producer) : 'the caller');
      });
      ol.append(h('li', { class: 'hit', 'data-id': r.id },
        h('div', { class: 'hit-head' },
          methodBadge(r.method),
          h('a', { href: endpointHref(r.id), class: 'hit-link' }, r.path),
          h('span', { class: `role role-${r.role}` }, r.role),
          confidenceBadge(r),
          h('span', { class: 'rank', title: 'rank by relevance' }, `#${r.rank}`)),
        h('div', { class: 'hit-sub' }, h('span', { class: 'api' }, r.api), r.summary ? ` — ${r.summary}` : ''),
        needs.length ? h('ul', { class: 'needs', 'aria-label': 'inputs from other calls' }, needs) : null));
    });
    results.append(ol);
    if (plan.length) {
      const section = h('section', { class: 'plan-section', 'aria-labelledby': 'plan-heading' },
        h('h2', { id: 'plan-heading' }, 'Plan', h('span', { class: 'sub' }, ` · ${plan.length} call${plan.length === 1 ? '' : 's'} in order`)));
      section.append(planList(plan));
      const graph = planGraph(plan, edges);
      section.append(graph || h('p', { class: 'hint plan-none' }, 'No call of the plan feeds an input of another.'));
      results.append(section);
    }
    announce(`${list.length} results`);
  }

  box.addEventListener('input', debounce(run, 220));
  box.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') {
      const first = results.querySelector('.hit-link');
      if (first) { e.preventDefault(); first.focus(); }
    }
  });
  results.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const links = [...results.querySelectorAll('.hit-link')];
    const i = links.indexOf(document.activeElement);
    if (i < 0) return;
    e.preventDefault();
    if (e.key === 'ArrowUp' && i === 0) box.focus();
    else links[Math.max(0, Math.min(links.length - 1, i + (e.key === 'ArrowDown' ? 1 : -1)))].focus();
  });
  box.focus();
  run();
}
