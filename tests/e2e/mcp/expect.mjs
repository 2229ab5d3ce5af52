// Writes what the MCP server should answer, as the apidex CLI computes it on the same
// index: `apidex search --json` (k = 5 and adaptive: the results and the plan), `apidex show --json` of the best
// endpoint, `apidex list --json`, `apidex ask --context-only --json` (budget 3000) and
// `apidex tools --format anthropic --search TASK -k 3`.
// usage: node expect.mjs <apidex> <db> <task> <out.json>
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const [bin, db, task, out] = process.argv.slice(2);
if (!out) {
  console.error('usage: expect.mjs <apidex> <db> <task> <out.json>');
  process.exit(2);
}
const run = (...args) => JSON.parse(execFileSync(bin, [...args, '--db', db, '--json'], { encoding: 'utf8' }));
const k5 = run('search', task, '-k', '5');
const adaptive = run('search', task, '--adaptive');
const primary = adaptive.results.find((r) => r.role === 'primary') ?? adaptive.results[0];
const show = run('show', primary.id);
const list = run('list');
const ask = run('ask', task, '--context-only', '--budget', '3000');
const tools = JSON.parse(execFileSync(bin, ['tools', '--db', db, '--format', 'anthropic', '--search', task, '-k', '3'], { encoding: 'utf8' }));
const apis = list.apis.map((a) => [a.id, a.operations]);
const other = apis.find(([id]) => id !== primary.api);
writeFileSync(out, JSON.stringify({
  task,
  search_k5: k5.results.map((r) => r.id),
  search_adaptive: adaptive.results.map((r) => r.id),
  plan_k5: k5.plan,
  plan_adaptive: adaptive.plan,
  endpoint: show,
  apis,
  ask: { endpoints: ask.endpoints, context: ask.context, context_tokens: ask.context_tokens },
  other_api: other ? other[0] : primary.api,
  tools,
}, null, 1));
