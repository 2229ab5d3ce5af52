// One endpoint: parameters, request body and responses as schema trees, authentication,
// servers with their variables, the producers of its inputs, and a call to copy in curl,
// Python or JavaScript built by the server (GET /v1/snippet, the `apidex snippet` builder).

import { get } from './api.js';
import { h, methodBadge, errorBox, endpointHref, debounce, announce, fill } from './dom.js';
import { schemaTree } from './tree.js';
import { rich, plainOf } from './markup.js';

const LANGS = [['curl', 'curl'], ['python', 'Python'], ['javascript', 'JavaScript']];

function typeText(schema) {
  if (!schema) return '';
  if (schema.$ref) return schema.$ref.split('/').pop();
  return Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type || '';
}

// A value to start the call form with: the example, the default, the first enum value.
function sample(p) {
  const s = p.schema || {};
  for (const v of [p.example, s.example, s.default, s.enum && s.enum[0]])
    if (v !== undefined && v !== null) return typeof v === 'string' ? v : JSON.stringify(v);
  return '';
}

function paramsTable(params, schemas) {
  if (!params.length) return h('p', {}, 'No parameters.');
  return h('div', { class: 'table-wrap' }, h('table', { class: 'params' },
    h('thead', {}, h('tr', {}, ['Name', 'In', 'Type', 'Description'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, params.map((p) => h('tr', {},
      h('td', {}, h('code', {}, p.name), p.required ? h('span', { class: 'req' }, 'required') : null,
        p.deprecated ? h('span', { class: 'deprecated' }, 'deprecated') : null),
      h('td', {}, p.in),
      h('td', {}, p.schema && (p.schema.$ref || p.schema.properties || p.schema.items)
        ? schemaTree(p.schema, schemas) : typeText(p.schema)),
      h('td', {}, rich(p) || ''))))));
}

function contentTrees(content, schemas) {
  return Object.entries(content || {}).map(([type, media]) => h('div', { class: 'media' },
    h('h3', { class: 'media-type' }, h('code', {}, type)),
    media && media.schema ? schemaTree(media.schema, schemas) : h('p', { class: 'hint' }, 'No schema.')));
}

function serversList(servers) {
  if (!servers || !servers.length) return h('p', {}, 'None declared.');
  return h('ul', { class: 'plain' }, servers.map((s) => h('li', {}, h('code', {}, s.url),
    s.description ? ` — ${plainOf(s)}` : '',
    s.variables ? h('ul', { class: 'vars', 'aria-label': 'server variables' },
      Object.entries(s.variables).map(([k, v]) => h('li', {}, h('code', {}, `{${k}}`), ` default ${JSON.stringify(v.default)}`,
        v.enum ? `, one of ${v.enum.join(', ')}` : '', v.description ? ` — ${plainOf(v)}` : ''))) : null)));
}

function authBlock(auth) {
  if (!auth || !auth.length) return h('p', {}, 'No authentication.');
  return h('ul', { class: 'plain' }, auth.map((alt, i) => h('li', {},
    i ? 'or ' : '',
    alt.length ? alt.map((s, j) => [j ? ' and ' : '', h('strong', {}, s.name), ` (${s.type || '?'}${s.in ? `, ${s.in} ${s.param}` : ''}${s.format ? `: ${s.format}` : ''})`])
      : 'none')));
}

function callForm(ep) {
  const inputs = [];
  const fields = (ep.parameters || []).map((p) => {
    const id = `in-${p.in}-${p.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
    const input = h('input', { id, type: 'text', value: sample(p), autocomplete: 'off', 'data-name': p.name, 'data-required': p.required ? '1' : '' });
    inputs.push(input);
    return h('div', { class: 'field' }, h('label', { for: id }, `${p.name} (${p.in}${p.required ? ', required' : ''})`), input);
  });
  const server = h('input', { id: 'call-server', type: 'url', value: '', placeholder: (ep.servers && ep.servers[0] && ep.servers[0].url) || 'https://…', autocomplete: 'off' });
  const body = ep.request_body ? h('textarea', { id: 'call-body', rows: 4, placeholder: '{"field": "value"}', spellcheck: 'false' }) : null;
  const out = h('pre', { class: 'snippet', id: 'snippet', tabindex: '0' });
  const notes = h('ul', { class: 'notes' });
  const copy = h('button', { type: 'button', id: 'copy-call', class: 'copy', disabled: true }, 'Copy');
  let lang = 'curl';
  const tabs = h('div', { role: 'tablist', 'aria-label': 'Language', class: 'tabs' });
  const tabButtons = LANGS.map(([l, label]) => h('button', {
    type: 'button', role: 'tab', id: `tab-${l}`, 'aria-selected': l === lang ? 'true' : 'false', 'aria-controls': 'snippet',
    tabindex: l === lang ? '0' : '-1', 'data-lang': l,
    onclick: () => { lang = l; selectTab(); refresh(); },
  }, label));
  tabs.append(...tabButtons);
  tabs.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    const i = LANGS.findIndex(([l]) => l === lang);
    const n = (i + (e.key === 'ArrowRight' ? 1 : LANGS.length - 1)) % LANGS.length;
    lang = LANGS[n][0];
    selectTab();
    tabButtons[n].focus();
    refresh();
  });
  function selectTab() {
    for (const b of tabButtons) {
      const on = b.dataset.lang === lang;
      b.setAttribute('aria-selected', on ? 'true' : 'false');
      b.tabIndex = on ? 0 : -1;
    }
    out.setAttribute('aria-labelledby', `tab-${lang}`);
  }
  let seq = 0;
  async function refresh() {
    const mine = ++seq;
    // a required parameter left empty is said here, without a request the server must refuse
    const missing = inputs.filter((i) => i.dataset.required && i.value === '').map((i) => i.dataset.name);
    if (body && ep.request_body.required && !body.value.trim()) missing.push('the body');
    if (missing.length) {
      out.textContent = `Fill in ${missing.join(', ')} (required) to get the call.`;
      out.classList.add('bad');
      delete copy.dataset.snippet;
      copy.disabled = true;
      notes.replaceChildren();
      return;
    }
    const args = [['id', ep.id], ['lang', lang]];
    for (const i of inputs) if (i.value !== '') args.push(['p', `${i.dataset.name}=${i.value}`]);
    if (server.value.trim()) args.push(['server', server.value.trim()]);
    if (body && body.value.trim()) args.push(['body', body.value.trim()]);
    try {
      const res = await get('/v1/snippet', args);
      if (mine !== seq) return;
      out.textContent = res.snippet;
      out.classList.remove('bad');
      copy.dataset.snippet = res.snippet;
      copy.disabled = false;
      notes.replaceChildren(...(res.notes || []).map((n) => h('li', {}, n)));
    } catch (err) {
      if (mine !== seq) return;
      out.textContent = err.message;
      out.classList.add('bad');
      delete copy.dataset.snippet;
      copy.disabled = true;
      notes.replaceChildren();
    }
  }
  copy.addEventListener('click', async () => {
    const text = copy.dataset.snippet || '';
    try {
      await navigator.clipboard.writeText(text);
      copy.textContent = 'Copied';
      announce('The call is on the clipboard');
    } catch {
      const range = document.createRange();
      range.selectNodeContents(out);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      copy.textContent = 'Selected: press Ctrl+C';
    }
    setTimeout(() => { copy.textContent = 'Copy'; }, 2000);
  });
  const later = debounce(refresh, 250);
  for (const i of [...inputs, server, body].filter(Boolean)) i.addEventListener('input', later);
  selectTab();
  refresh();
  return h('section', { class: 'call', 'aria-labelledby': 'call-title' },
    h('h2', { id: 'call-title' }, 'Call it'),
    h('p', { class: 'hint' }, 'Fill in the inputs; credentials are never written, the call reads them from environment variables.'),
    h('div', { class: 'call-fields' }, fields,
      h('div', { class: 'field' }, h('label', { for: 'call-server' }, 'Server (empty: the spec\'s)'), server),
      body ? h('div', { class: 'field wide' }, h('label', { for: 'call-body' }, 'Body (JSON)'), body) : null),
    h('div', { class: 'snippet-head' }, tabs, copy), out, notes);
}

export async function endpointView(main, id) {
  fill(main, h('h1', {}, id), h('p', { class: 'hint' }, 'Loading…'));
  let ep;
  try {
    ep = await get(`/v1/endpoints/${encodeURIComponent(id)}`, [['detail', 'full'], ['markup', 'html']]);
  } catch (err) {
    fill(main, h('h1', {}, id), errorBox(err));
    return;
  }
  const schemas = ep.schemas || {};
  const rb = ep.request_body;
  fill(main, 
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/apis' }, 'APIs'), ' / ',
      h('a', { href: `#/api/${encodeURIComponent(ep.api)}` }, ep.api_title && ep.api_title !== 'API' ? ep.api_title : ep.api), ' / ', ep.operation_id || ep.path),
    h('h1', { class: 'endpoint-title' }, methodBadge(ep.method), h('span', { class: 'path' }, ep.path)),
    ep.summary ? h('p', { class: 'lead' }, ep.summary) : null,
    h('p', { class: 'meta' }, h('code', {}, ep.id), ep.deprecated ? h('span', { class: 'deprecated' }, 'deprecated') : null,
      (ep.tags || []).length ? [' · tags: ', ep.tags.join(', ')] : null),
    ep.note ? h('p', { class: 'note' }, ep.note) : null,
    rich(ep),
    ep.content && !ep.parameters ? h('pre', { class: 'stored' }, ep.content) : null,
    callForm(ep),
    h('h2', {}, 'Authentication'), authBlock(ep.auth),
    h('h2', {}, 'Servers'), serversList(ep.servers),
    h('h2', {}, 'Parameters'), paramsTable(ep.parameters || [], schemas),
    h('h2', {}, 'Request body'),
    rb ? [h('p', {}, rb.required ? 'Required.' : 'Optional.'), rich(rb), contentTrees(rb.content, schemas)]
      : h('p', {}, 'None.'),
    h('h2', {}, 'Responses'),
    (ep.responses || []).map((r) => h('details', { class: 'response', open: /^2/.test(r.status) },
      h('summary', {}, h('span', { class: `status s${String(r.status)[0]}` }, r.status), r.description ? ` ${plainOf(r)}` : ''),
      r.content ? contentTrees(r.content, schemas) : h('p', { class: 'hint' }, 'No body.'))),
    h('h2', {}, 'Where its inputs come from'),
    (ep.producers || []).length ? h('ul', { class: 'plain' }, ep.producers.map((p) => h('li', {},
      h('code', {}, p.param), ' ← ', h('a', { href: endpointHref(p.producer) }, p.endpoint), h('span', { class: 'hint' }, ` score ${p.score}`))))
      : h('p', {}, 'No other endpoint produces its inputs.'));
}
