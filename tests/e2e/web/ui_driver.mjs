// Drives apidex's web page in Debian's chromium (headless, via playwright-core) for
// tests/e2e/test_web_ui.sh: search as you type and the plan graph, an endpoint page and
// its copied curl line, browse and index pages, keyboard, themes, phone width, axe-core
// (serious and critical violations fail), no console errors; a second server with a
// token (the token button shows only there); a hostile spec's descriptions (markdown
// rendered, no raw HTML, nothing runs; result cards show the summary, or the description's
// first sentence). Prints one "ok ..." or "FAIL ..." line per check; exits 1 when any failed.
//
// env: BASE (the page), TOKEN_BASE and TOKEN (a server run with --token), HOSTILE_BASE (a
// server of tests/e2e/web/hostile.json), MOCK (the mock's
// TMDB base URL), OUT (screenshots and the copied curl line), MODULES (node_modules),
// CHROMIUM (the browser).
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const env = process.env;
const require = createRequire(join(env.MODULES, 'noop.js'));
const { chromium } = require('playwright-core');
const axeSource = readFileSync(join(env.MODULES, 'axe-core', 'axe.min.js'), 'utf8');

let failed = 0;
const ok = (name) => console.log(`ok ${name}`);
const bad = (name, detail) => { failed++; console.log(`FAIL ${name}${detail ? `: ${detail}` : ''}`); };
const check = (name, cond, detail) => (cond ? ok(name) : bad(name, detail));

const REVIEWS = 'themoviedb:GET_movie-movie_id-reviews';
const TASK = 'get the reviews of the most popular movie';

async function axe(page, name) {
  // evaluated through the DevTools protocol: the page's CSP (no inline script) stays on
  await page.evaluate(axeSource);
  const res = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) }));
  });
  const serious = res.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  check(`axe: no serious or critical violations on ${name}`, serious.length === 0, JSON.stringify(serious));
  const minor = res.filter((v) => !serious.includes(v));
  if (minor.length) console.log(`   (axe, minor on ${name}: ${minor.map((v) => v.id).join(', ')})`);
}

function watch(page, errors, allow) {
  page.on('console', (m) => {
    if (m.type() === 'error' && !(allow && allow.test(m.text()))) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
}

async function main() {
  const browser = await chromium.launch({
    executablePath: env.CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    await desktop(browser);
    await phone(browser);
    await withToken(browser);
    await hostile(browser);
  } finally {
    await browser.close();
  }
}

async function desktop(browser) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.BASE });
  const page = await ctx.newPage();
  const errors = [];
  watch(page, errors);
  await page.goto(`${env.BASE}/`);
  await page.waitForSelector('#task');
  check('the task box has the focus', await page.evaluate(() => document.activeElement.id === 'task'));
  check('a server without a token shows no token button', await page.isHidden('#token-button'));

  // results as you type: no Enter, no button
  await page.locator('#task').pressSequentially(TASK, { delay: 15 });
  // the last keystroke's search (after the debounce) has been sent and answered: a slow
  // server (a sanitizer build) may still be answering an earlier prefix of the task
  await page.waitForFunction((t) => {
    const hash = location.hash;
    return new URLSearchParams(hash.slice(hash.indexOf('?') + 1)).get('q') === t &&
      !document.querySelector('[aria-busy="true"]');
  }, TASK, { timeout: 20000 }).catch(() => {});
  await page.waitForSelector(`.hit[data-id="${REVIEWS}"]`, { timeout: 10000 });
  const ids = await page.$$eval('.hit', (els) => els.map((e) => e.dataset.id));
  check('the reviews endpoint is found', ids.includes(REVIEWS), ids.join(' '));
  const subs = await page.$$eval('.hit .hit-sub', (els) => els.map((e) => e.textContent));
  check('every result card shows its summary', subs.length === ids.length && subs.every((t) => / — \S/.test(t)), subs.join(' | '));
  const producers = await page.$$eval(`svg.plan path.edge[data-to="${REVIEWS}"]`, (es) => es.map((e) => e.dataset.from));
  check('the plan graph draws an edge into the reviews call', producers.length > 0);
  const steps = await page.$$eval('.plan-step', (els) => els.map((e) => e.dataset.id));
  check('the page has a Plan section', (await page.textContent('#plan-heading')).startsWith('Plan'));
  check('that producer is a step of the plan, called before it', producers.length > 0 && producers.every((p) => steps.includes(p) && steps.indexOf(p) < steps.indexOf(REVIEWS)), `${producers} in ${steps}`);
  check('the reviews call says where its movie_id comes from', (await page.textContent(`.plan-step[data-id="${REVIEWS}"] .needs`)).includes('movie_id'));
  check('the results are by relevance: the reviews call before its producers', producers.every((p) => !ids.includes(p) || ids.indexOf(p) > ids.indexOf(REVIEWS)), `${ids}`);
  check('the edge feeds movie_id', (await page.$$eval(`svg.plan path.edge[data-to="${REVIEWS}"]`, (es) => es.map((e) => e.dataset.param))).includes('movie_id'));
  const nEdges = await page.$$eval('svg.plan path.edge', (e) => e.length);
  const nNodes = await page.$$eval('svg.plan a.node', (e) => e.length);
  check('the plan graph has nodes and edges', nEdges >= 1 && nNodes >= 2, `${nNodes} nodes, ${nEdges} edges`);
  check('the graph says what it shows', (await page.$eval('svg.plan desc', (d) => d.textContent)).includes('movie_id'));
  const hash = await page.evaluate(() => location.hash);
  check('the URL keeps the task', new URLSearchParams(hash.slice(hash.indexOf('?') + 1)).get('q') === TASK, hash);

  // keyboard: down from the box into the results, up back
  await page.focus('#task');
  await page.keyboard.press('ArrowDown');
  check('ArrowDown moves to the first result', await page.evaluate(() => document.activeElement.classList.contains('hit-link')));
  await page.keyboard.press('ArrowUp');
  check('ArrowUp comes back to the box', await page.evaluate(() => document.activeElement.id === 'task'));

  // the match: a card shows its confidence; a strong answer has no warning
  const confs = await page.$$eval('.hit .confidence', (els) => els.map((e) => e.textContent));
  check('each card shows its confidence', confs.length === ids.length && confs.every((c) => /^\d+% confidence$/.test(c)), confs.join(' '));
  check('a strong answer shows no match warning', !(await page.$('.results .match')));

  // filters: a method filter leaves no GET
  await page.selectOption('#f-method', 'POST');
  await page.waitForFunction(() => !document.querySelector('.results[aria-busy]'));
  await page.waitForTimeout(200);
  const methods = await page.$$eval('.hit .method', (els) => els.map((e) => e.textContent));
  check('the method filter keeps POSTs only', methods.every((m) => m === 'POST'), methods.join(' '));
  await page.selectOption('#f-method', '');
  await page.waitForSelector(`.hit[data-id="${REVIEWS}"]`);
  await page.screenshot({ path: join(env.OUT, 'search-desktop.png') });
  await axe(page, 'the search page');

  // a task nothing in the index does: the page says so in words and names the closest APIs
  await page.fill('#task', 'turn off the living room lights');
  const none = await page.waitForSelector('.results .match-none', { timeout: 10000 }).catch(() => null);
  const noneText = none ? await none.textContent() : '';
  check('a task nothing fits says so on the page', noneText.startsWith('Nothing in this registry fits the task. Closest APIs: '), noneText);
  await page.screenshot({ path: join(env.OUT, 'search-nothing-fits.png') });
  await page.fill('#task', TASK);
  await page.waitForSelector(`.hit[data-id="${REVIEWS}"]`, { timeout: 10000 });
  check('the warning goes with a task that fits', !(await page.$('.results .match')));

  // the endpoint page and its call
  await page.click(`.hit[data-id="${REVIEWS}"] .hit-link`);
  await page.waitForSelector('h1.endpoint-title');
  check('the endpoint page shows the path', (await page.textContent('h1.endpoint-title')).includes('/movie/{movie_id}/reviews'));
  check('parameters are listed', (await page.textContent('table.params')).includes('movie_id'));
  check('a response schema tree is drawn', (await page.$$('details.response .tree')).length > 0);
  check('authentication is shown', (await page.textContent('main')).includes('api_key'));
  await page.waitForSelector('#snippet.bad'); // movie_id is required and empty
  check('a missing input is named', (await page.textContent('#snippet')).includes('movie_id'));
  await page.fill('#in-path-movie_id', '550');
  await page.fill('#call-server', env.MOCK);
  await page.waitForFunction((mock) => document.querySelector('#snippet:not(.bad)')?.textContent.includes(mock), env.MOCK);
  await page.click('#copy-call');
  await page.waitForFunction(() => document.querySelector('#copy-call').textContent !== 'Copy');
  const fromButton = await page.getAttribute('#copy-call', 'data-snippet');
  let clip = '';
  try { clip = await page.evaluate(() => navigator.clipboard.readText()); } catch (e) { clip = ''; }
  check('the clipboard holds the curl line', clip === fromButton, `clipboard ${JSON.stringify(clip)} button ${JSON.stringify(fromButton)}`);
  check('the curl line calls the mock', fromButton.startsWith('curl ') && fromButton.includes(`${env.MOCK}/movie/550/reviews`), fromButton);
  check('no secret in the call, a variable instead', fromButton.includes('$APIDEX_AUTH_THEMOVIEDB_API_KEY'), fromButton);
  writeFileSync(join(env.OUT, 'copied-curl.sh'), clip || fromButton);
  await page.click('#tab-python');
  await page.waitForFunction(() => document.querySelector('#snippet').textContent.includes('urllib'));
  ok('the Python tab shows urllib');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('#snippet').textContent.includes('fetch('));
  check('ArrowRight on the tabs moves to JavaScript', await page.evaluate(() => document.activeElement.id === 'tab-javascript'));
  await page.screenshot({ path: join(env.OUT, 'endpoint-desktop.png'), fullPage: false });
  await axe(page, 'an endpoint page');

  // a cycle in a schema is marked, not unrolled
  await page.goto(`${env.BASE}/#/api/circular-examples`);
  await page.waitForSelector('ul.ops a');
  const cyc = await page.$$eval('ul.ops a', (as) => as.map((a) => a.getAttribute('href')));
  let cycles = 0;
  for (const href of cyc) {
    await page.goto(`${env.BASE}/${href}`);
    await page.waitForSelector('h1.endpoint-title');
    // trees are built as they are opened: open level after level (a cycle ends the unrolling)
    for (let level = 0; level < 8; level++) {
      const closed = await page.$$eval('.tree details:not([open])', (ds) => ds.map((d) => { d.open = true; return 1; }).length);
      if (!closed) break;
      await page.waitForTimeout(50);
    }
    cycles += (await page.$$('.cycle')).length;
  }
  check('circular schemas are marked as cycles', cycles > 0, `${cycles} marks on ${cyc.length} endpoints`);

  // browse
  await page.goto(`${env.BASE}/#/apis`);
  await page.waitForSelector('ul.cards li.card');
  const cards = await page.$$eval('ul.cards li.card h2', (els) => els.map((e) => e.textContent));
  check('four APIs are listed', cards.length === 4, cards.join(', '));
  await axe(page, 'the API list');
  await page.click('text=Swagger Petstore');
  await page.waitForSelector('ul.ops li');
  const ops = await page.$$('ul.ops li');
  check('the petstore lists its 20 operations', ops.length === 20, `${ops.length}`);
  check('its authentication schemes are listed', (await page.textContent('main')).includes('petstore_auth'));
  await page.selectOption('#op-tag', 'store');
  check('the tag filter keeps the store endpoints', (await page.$$('ul.ops li')).length === 4);
  await axe(page, 'an API page');

  // the index page
  await page.goto(`${env.BASE}/#/index`);
  await page.waitForSelector('table.docs tbody tr');
  const rows = await page.$$('table.docs tbody tr');
  check('the index page lists four documents', rows.length === 4);
  const stats = await page.textContent('dl.stats');
  check('it shows operations, build time and size', stats.includes('78') && /Built/.test(stats) && /KB|MB/.test(stats), stats);
  const warnText = await page.textContent('table.docs');
  check('the broken fixture shows a warning with line:col and pointer', /warn\.json:\d+:\d+/.test(warnText) || !env.EXPECT_WARNING, warnText.slice(0, 400));
  await axe(page, 'the index page');

  // dark theme
  await page.click('#theme-toggle');
  check('the toggle switches to dark', await page.evaluate(() => document.documentElement.dataset.theme === 'dark'));
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  check('the dark theme is dark', bg === 'rgb(13, 17, 23)', bg);
  await page.goto(`${env.BASE}/#/search?q=${encodeURIComponent(TASK)}`);
  await page.waitForSelector('svg.plan');
  await axe(page, 'the search page, dark');
  await page.screenshot({ path: join(env.OUT, 'search-desktop-dark.png') });
  check('no console errors (desktop)', errors.length === 0, errors.join(' | '));
  await ctx.close();
}

async function phone(browser) {
  const ctx = await browser.newContext({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const page = await ctx.newPage();
  const errors = [];
  watch(page, errors);
  await page.goto(`${env.BASE}/#/search?q=${encodeURIComponent(TASK)}`);
  await page.waitForSelector('svg.plan path.edge', { state: 'attached' });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  check('nothing is wider than a 375px phone', width <= 376, `scrollWidth ${width}`);
  await page.screenshot({ path: join(env.OUT, 'search-phone.png') });
  await axe(page, 'the search page at 375px');
  await page.goto(`${env.BASE}/#/endpoint/${encodeURIComponent(REVIEWS)}`);
  await page.waitForSelector('h1.endpoint-title');
  const w2 = await page.evaluate(() => document.documentElement.scrollWidth);
  check('the endpoint page fits a phone', w2 <= 376, `scrollWidth ${w2}`);
  await page.screenshot({ path: join(env.OUT, 'endpoint-phone.png') });
  check('no console errors (phone)', errors.length === 0, errors.join(' | '));
  await ctx.close();
}

async function withToken(browser) {
  if (!env.TOKEN_BASE) return;
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  const errors = [];
  watch(page, errors, /status of 401/); // the browser logs the first, refused request
  const auth = [];
  page.on('request', (r) => { if (r.url().includes('/v1/')) auth.push(r.headers().authorization || ''); });
  await page.goto(`${env.TOKEN_BASE}/`);
  await page.waitForSelector('#token-dialog[open]', { timeout: 10000 });
  ok('a server with a token: the page asks for it');
  check('a server with a token shows the token button', await page.isVisible('#token-button'));
  await axe(page, 'the token dialog');
  await page.fill('#token-input', 'wrong');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#token-dialog[open]');
  check('a wrong token is asked again', (await page.textContent('#token-why')).includes('refused'));
  await page.fill('#token-input', env.TOKEN);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#task');
  await page.locator('#task').pressSequentially(TASK, { delay: 10 });
  await page.waitForSelector(`.hit[data-id="${REVIEWS}"]`, { timeout: 10000 });
  ok('with the token, search answers');
  check('the token is kept for the tab', (await page.evaluate(() => sessionStorage.getItem('apidex-token'))) === env.TOKEN);
  check('requests carry the bearer token', auth.some((a) => a === `Bearer ${env.TOKEN}`), auth.join(','));
  await page.goto(`${env.TOKEN_BASE}/#/index`);
  await page.waitForSelector('table.docs tbody tr');
  ok('the index page loads with the kept token, without asking again');
  check('no console errors (token)', errors.length === 0, errors.join(' | '));
  await ctx.close();
}

// The descriptions of a hostile spec: markdown rendered, HTML never raw, nothing runs.
async function hostile(browser) {
  if (!env.HOSTILE_BASE) return;
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  const errors = [];
  watch(page, errors);
  const SEND = 'hostile-texts:sendText';
  await page.goto(`${env.HOSTILE_BASE}/#/search?q=${encodeURIComponent('send a text message')}`);
  await page.waitForSelector(`.hit[data-id="${SEND}"]`, { timeout: 10000 });
  const sub = await page.textContent(`.hit[data-id="${SEND}"] .hit-sub`);
  check('a card without a summary shows the description\'s first sentence, plain', sub.includes('— Send a text message to an E.164 number.'), sub);
  check('the token button stays hidden', await page.isHidden('#token-button'));

  await page.goto(`${env.HOSTILE_BASE}/#/endpoint/${encodeURIComponent(SEND)}`);
  await page.waitForSelector('h1.endpoint-title');
  await page.waitForSelector('main .desc.md');
  const desc = page.locator('main > .desc.md').first();
  check('markdown emphasis is rendered', (await desc.locator('strong').allTextContents()).includes('text message'));
  const hrefs = await page.$$eval('main a[href]', (as) => as.map((a) => a.getAttribute('href')));
  check('a markdown link is a link', hrefs.includes('https://en.wikipedia.org/wiki/E.164'), hrefs.join(' '));
  check('no javascript: link', hrefs.every((h) => !/^\s*javascript:/i.test(h)), hrefs.join(' '));
  check('the list is a list', (await desc.locator('li').count()) === 2);
  const bad = await page.evaluate(() => document.querySelectorAll('main script, main img, main iframe, main [onerror], main [onclick], main [style]').length);
  check('no script, image or handler from the spec in the page', bad === 0, `${bad}`);
  const text = await page.textContent('main');
  const raw = ['<script', '<img', '<p>', '</p>', '<fullname>', '<code>', '](', '**', 'onerror'].filter((r) => text.includes(r));
  check('no raw markdown or HTML shows', raw.length === 0, raw.join(' '));
  check('the texts stay', text.includes('recipient number, e.g. +15551234567') && text.includes('tap here') && text.includes('The message was queued.'), text.slice(0, 400));
  await page.getByText('tap here').click();
  await page.getByText('this', { exact: true }).first().click().catch(() => {});
  await page.waitForTimeout(300);
  check('nothing of the spec ran', (await page.evaluate(() => window.__pwned)) === undefined);

  await page.goto(`${env.HOSTILE_BASE}/#/endpoint/${encodeURIComponent('hostile-texts:getText')}`);
  await page.waitForSelector('main .desc.md');
  const t2 = await page.textContent('main > .desc.md');
  check('an HTML description shows its text', t2.includes('Returns one text message.') && t2.includes('Its status.') && !t2.includes('<'), t2);
  await page.goto(`${env.HOSTILE_BASE}/#/api/hostile-texts`);
  await page.waitForSelector('ul.ops li');
  check('the API page shows no raw markup', !(await page.textContent('main')).includes('<'));
  await page.waitForTimeout(200);
  check('nothing of the spec ran (all pages)', (await page.evaluate(() => window.__pwned)) === undefined);
  await axe(page, 'a hostile API page');
  check('no console errors (hostile spec)', errors.length === 0, errors.join(' | '));
  await ctx.close();
}

main().then(() => {
  console.log(failed ? `${failed} browser check(s) failed` : 'all browser checks passed');
  process.exit(failed ? 1 : 0);
}).catch((e) => {
  console.log(`FAIL the driver stopped: ${e.stack || e}`);
  process.exit(1);
});
