// The index page: what is indexed, when and how large, and each document's warnings with
// file, line:col and JSON pointer (GET /v1/index).

import { get } from './api.js';
import { h, errorBox, bytes, fill } from './dom.js';

function stat(label, value) {
  return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', {}, value));
}

function warningList(doc) {
  if (!doc.warnings.length) return null;
  return h('details', { class: 'warnings' },
    h('summary', {}, `${doc.n_warnings} warning${doc.n_warnings === 1 ? '' : 's'}${doc.n_errors ? `, ${doc.n_errors} error${doc.n_errors === 1 ? '' : 's'}` : ''}`),
    h('ul', {}, doc.warnings.map((w) => h('li', { class: `diag ${w.level}` },
      h('code', { class: 'where' }, `${w.file}${w.line ? `:${w.line}:${w.col}` : ''}`),
      w.pointer ? [' ', h('code', { class: 'pointer' }, w.pointer)] : null,
      h('span', { class: 'msg' }, ` ${w.level}: ${w.message}`)))),
    doc.n_dropped ? h('p', { class: 'hint' }, `${doc.n_dropped} more not kept.`) : null);
}

export async function indexView(main) {
  fill(main, h('h1', {}, 'Index'), h('p', { class: 'hint' }, 'Reading the documents again for their warnings…'));
  let ix;
  try {
    ix = await get('/v1/index');
  } catch (err) {
    fill(main, h('h1', {}, 'Index'), errorBox(err));
    return;
  }
  const warned = ix.documents.filter((d) => d.warnings.length).length;
  fill(main, 
    h('h1', {}, 'Index'),
    h('dl', { class: 'stats' },
      stat('APIs', ix.apis), stat('Operations', ix.operations), stat('Schemas', ix.schemas),
      stat('Chunks', ix.chunks), stat('Producer edges', ix.edges),
      stat('Built', ix.created ? new Date(ix.created).toLocaleString() : '?'),
      stat('Size', bytes(ix.size_bytes)), stat('File', ix.file),
      stat('Build id', ix.build_id), stat('apidex', `${ix.apidex_version} (schema ${ix.schema_version})`)),
    h('h2', {}, 'Documents'),
    h('p', { class: 'hint' }, `${ix.documents.length} documents, ${warned} with warnings (read again now; "changed" means the file differs from what was indexed).`),
    h('div', { class: 'table-wrap' }, h('table', { class: 'docs' },
      h('thead', {}, h('tr', {}, ['API', 'Version', 'OpenAPI', 'Operations', 'Files', 'State', 'Warnings'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ix.documents.map((d) => h('tr', {},
        h('td', {}, h('a', { href: `#/api/${encodeURIComponent(d.api)}` }, d.title || d.api), h('div', { class: 'hint doc' }, d.document)),
        h('td', {}, d.version || ''), h('td', {}, d.spec_version || ''),
        h('td', { class: 'num' }, d.n_operations), h('td', { class: 'num' }, d.n_files),
        h('td', {}, h('span', { class: `state st-${d.state}` }, d.state)),
        h('td', {}, warningList(d) || 'none')))))));
}
