// Browsing: every API (title, version, operation count, servers, tags), and one API with
// its authentication, tags and endpoints (filtered by tag or by text).

import { get } from './api.js';
import { h, clear, methodBadge, errorBox, endpointHref, fill } from './dom.js';
import { catalog } from './catalog.js';
import { rich, plainOf } from './markup.js';

export async function apisView(main) {
  fill(main, h('h1', {}, 'APIs'), h('p', { class: 'hint' }, 'Loading…'));
  let cat;
  try {
    cat = await catalog();
  } catch (err) {
    fill(main, h('h1', {}, 'APIs'), errorBox(err));
    return;
  }
  const filter = h('input', { id: 'api-filter', type: 'search', placeholder: 'Filter by name', autocomplete: 'off' });
  const list = h('ul', { class: 'cards' });
  const render = () => {
    const f = filter.value.trim().toLowerCase();
    clear(list);
    for (const a of cat.apis) {
      if (f && !`${a.id} ${a.title || ''}`.toLowerCase().includes(f)) continue;
      list.append(h('li', { class: 'card' },
        h('h2', {}, h('a', { href: `#/api/${encodeURIComponent(a.id)}` }, a.title || a.id)),
        h('p', { class: 'meta' },
          h('code', {}, a.id), ` · version ${a.version || '?'} · ${a.n_operations} operations · OpenAPI ${a.spec_version || '?'}`),
        rich(a),
        a.servers && a.servers.length ? h('p', { class: 'servers' }, 'Servers: ', a.servers.map((u, i) => [i ? ', ' : '', h('code', {}, u)])) : null,
        a.tags && a.tags.length ? h('ul', { class: 'chips', 'aria-label': `tags of ${a.id}` },
          a.tags.slice(0, 12).map((t) => h('li', {}, h('a', { href: `#/api/${encodeURIComponent(a.id)}?tag=${encodeURIComponent(t.name)}` }, `${t.name} (${t.n_operations})`))),
          a.tags.length > 12 ? h('li', {}, `+${a.tags.length - 12} more`) : null) : null));
    }
  };
  filter.addEventListener('input', render);
  fill(main, h('h1', {}, 'APIs'),
    h('p', { class: 'hint' }, `${cat.count} APIs, ${cat.n_operations} operations.`),
    h('div', { class: 'field' }, h('label', { for: 'api-filter' }, 'Filter'), filter), list);
  render();
}

function authList(auth) {
  if (auth === null || auth === undefined) return h('p', { class: 'hint' }, 'The document could not be read again to list its schemes.');
  if (!auth.length) return h('p', {}, 'No security schemes declared.');
  return h('ul', { class: 'plain' }, auth.map((s) => h('li', {},
    h('strong', {}, s.name), ` — ${s.type || '?'}`,
    s.type === 'apiKey' ? ` in ${s.in} as ${s.param}` : s.scheme ? ` (${s.scheme})` : '',
    s.description ? h('span', { class: 'hint' }, ` · ${plainOf(s)}`) : null)));
}

export async function apiView(main, id, params) {
  fill(main, h('h1', {}, id), h('p', { class: 'hint' }, 'Loading…'));
  let api;
  try {
    api = await get(`/v1/apis/${encodeURIComponent(id)}`, [['markup', 'html']]);
  } catch (err) {
    fill(main, h('h1', {}, id), errorBox(err));
    return;
  }
  let tag = params.get('tag') || '';
  const filter = h('input', { id: 'op-filter', type: 'search', placeholder: 'Filter by path or summary', autocomplete: 'off' });
  const tagSel = h('select', { id: 'op-tag' }, h('option', { value: '' }, 'all tags'),
    (api.tags || []).map((t) => h('option', { value: t.name, selected: t.name === tag }, `${t.name} (${t.n_operations})`)));
  const list = h('ul', { class: 'ops' });
  const count = h('p', { class: 'hint', 'aria-live': 'polite' });
  const render = () => {
    const f = filter.value.trim().toLowerCase();
    clear(list);
    let n = 0;
    for (const op of api.operations || []) {
      if (tag && !(op.tags || []).includes(tag)) continue;
      const [method, ...rest] = op.endpoint.split(' ');
      const path = rest.join(' ');
      if (f && !`${path} ${op.summary || ''}`.toLowerCase().includes(f)) continue;
      n++;
      list.append(h('li', {},
        methodBadge(method),
        h('a', { href: endpointHref(op.id) }, path),
        op.deprecated ? h('span', { class: 'deprecated' }, 'deprecated') : null,
        op.summary ? h('span', { class: 'summary' }, op.summary) : null));
    }
    count.textContent = `${n} of ${(api.operations || []).length} endpoints`;
  };
  filter.addEventListener('input', render);
  tagSel.addEventListener('change', () => {
    tag = tagSel.value;
    history.replaceState(null, '', `#/api/${encodeURIComponent(id)}${tag ? `?tag=${encodeURIComponent(tag)}` : ''}`);
    render();
  });
  fill(main, 
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/apis' }, 'APIs'), ' / ', api.id),
    h('h1', {}, api.title || api.id),
    h('p', { class: 'meta' }, h('code', {}, api.id), ` · version ${api.version || '?'} · OpenAPI ${api.spec_version || '?'} · ${(api.operations || []).length} operations`),
    api.description ? h('details', { class: 'about' }, h('summary', {}, 'Description'), rich(api)) : null,
    h('h2', {}, 'Servers'),
    (api.servers || []).length ? h('ul', { class: 'plain' }, api.servers.map((u) => h('li', {}, h('code', {}, u)))) : h('p', {}, 'None declared.'),
    h('h2', {}, 'Authentication'), authList(api.auth),
    h('h2', {}, 'Endpoints'),
    h('div', { class: 'filters' },
      h('div', { class: 'field' }, h('label', { for: 'op-tag' }, 'Tag'), tagSel),
      h('div', { class: 'field' }, h('label', { for: 'op-filter' }, 'Filter'), filter)),
    count, list);
  render();
}
