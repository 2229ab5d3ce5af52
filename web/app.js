// apidex's web page: a hash router over four views (search, APIs, one API, one endpoint,
// the index), the theme toggle and the token button (shown once the server asks for a
// token). No framework, no build step.

import { askToken, token, showTokenButton } from './api.js';
import { forgetCatalog } from './catalog.js';
import { searchView } from './search.js';
import { apisView, apiView } from './browse.js';
import { endpointView } from './endpoint.js';
import { indexView } from './indexview.js';
import { errorBox, fill } from './dom.js';

const main = document.getElementById('main');

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/search';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  const parts = path.split('/').filter(Boolean);
  return { view: parts[0] || 'search', arg: parts.length > 1 ? decodeURIComponent(parts.slice(1).join('/')) : '', params };
}

async function route() {
  const { view, arg, params } = parseHash();
  for (const a of document.querySelectorAll('[data-nav]')) {
    const on = a.dataset.nav === view || (view === 'api' && a.dataset.nav === 'apis');
    if (on) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  try {
    if (view === 'apis') await apisView(main);
    else if (view === 'api' && arg) await apiView(main, arg, params);
    else if (view === 'endpoint' && arg) await endpointView(main, arg);
    else if (view === 'index') await indexView(main);
    else await searchView(main, params);
  } catch (err) {
    fill(main, errorBox(err));
  }
  document.title = `${main.querySelector('h1')?.textContent || 'apidex'} · apidex`;
  if (view !== 'search') main.focus({ preventScroll: true });
}

// Theme: the system's by default; the toggle stores an explicit choice.
function applyTheme(theme) {
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
  const dark = theme ? theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  // a toggle button keeps its name; aria-pressed says whether the dark theme is on
  document.getElementById('theme-toggle').setAttribute('aria-pressed', dark ? 'true' : 'false');
}
applyTheme(localStorage.getItem('apidex-theme'));
document.getElementById('theme-toggle').addEventListener('click', () => {
  const dark = document.getElementById('theme-toggle').getAttribute('aria-pressed') === 'true';
  const next = dark ? 'light' : 'dark';
  localStorage.setItem('apidex-theme', next);
  applyTheme(next);
});

if (token()) showTokenButton();
document.getElementById('token-button').addEventListener('click', async () => {
  const had = token();
  if (await askToken(had ? 'Replace the token kept for this tab.' : undefined)) {
    forgetCatalog();
    route();
  }
});

// "/" anywhere but in a field goes to the task box.
document.addEventListener('keydown', (e) => {
  if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return;
  e.preventDefault();
  const box = document.getElementById('task');
  if (box) box.focus();
  else location.hash = '#/search';
});

window.addEventListener('hashchange', route);
route();
