// list_apis through the official MCP SDK client (v1, over stdio): pages through the catalog
// with nextCursor and checks that the pages hold every API of `apidex list --json` exactly
// once, largest first, each as one short plain line, that every page is compact, and that
// a bad cursor is a tool error the model can act on.
//
// usage: node list_apis_pages.mjs <tools/node dir> <apidex> <db>
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';

const [nodeDir, bin, db] = process.argv.slice(2);
const require = createRequire(join(resolve(nodeDir), 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const list = JSON.parse(execFileSync(bin, ['list', '--json', '--db', db], { encoding: 'utf8' }));
const want = new Map(list.apis.map((a) => [a.id, a.operations]));
const tokens = (text) => Number(execFileSync(bin, ['tokens', '-'], { input: text, encoding: 'utf8' }).trim());

const client = new Client({ name: 'apidex-e2e', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: bin, args: ['mcp', '--db', db], stderr: 'ignore' }));
const tool = (await client.listTools()).tools.find((t) => t.name === 'list_apis');
assert.ok(tool.inputSchema.properties.cursor, 'list_apis takes a cursor');

const seen = [];
let cursor;
let pages = 0;
do {
  const r = await client.callTool({ name: 'list_apis', arguments: cursor ? { cursor } : {} });
  assert.ok(!r.isError, JSON.stringify(r));
  const page = r.structuredContent;
  assert.equal(page.count, want.size);
  assert.ok(page.apis.length > 0 && page.apis.length <= 20, `page of ${page.apis.length}`);
  const t = tokens(r.content[0].text);
  assert.ok(t <= 2500, `page ${pages + 1} is ${t} tokens`);
  for (const a of page.apis) {
    assert.ok(want.has(a.id), `unknown API ${a.id}`);
    assert.doesNotMatch(a.about, /[\n<>]|<\/?p>|\]\(/, `about of ${a.id} is one plain line: ${a.about}`);
    const n = Number(/: (\d+) operations?/.exec(a.about)[1]);
    assert.equal(n, want.get(a.id), `${a.id} operations`);
    assert.ok(a.about.length <= 400, `about of ${a.id}: ${a.about}`);
    seen.push([a.id, n]);
  }
  cursor = page.nextCursor;
  pages++;
} while (cursor && pages < 100);
assert.ok(pages >= 2, `one page only: the corpus should need more (${seen.length} APIs)`);
assert.deepEqual(seen.map(([id]) => id).sort(), [...want.keys()].sort(), 'every API exactly once');
for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1][1] >= seen[i][1], 'largest first');

for (const bad of ['nonsense', 'apis:99999', 'apis:-1']) {
  const r = await client.callTool({ name: 'list_apis', arguments: { cursor: bad } });
  assert.equal(r.isError, true, `cursor ${bad}`);
  assert.match(r.content[0].text, /invalid cursor/);
}
await client.close();
console.log(`ok list_apis: ${seen.length} APIs in ${pages} pages`);
