// apidex mcp's call_endpoint on an MCP server's resources and prompts, through the official
// MCP SDK client (v1, stdio): off without --allow-calls; a resource read and a template
// filled; a prompt got with its arguments; a missing required argument, an undeclared one
// (a URI the model names) and a resource the index does not hold refused; and the gateway
// session kept open: two calls through one server process, started again when it died.
// usage: node check_reads.mjs <tools/node dir> <apidex> <db>
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';

const [nodeDir, bin, db] = process.argv.slice(2);
if (!db) {
  console.error('usage: check_reads.mjs <tools/node dir> <apidex> <db>');
  process.exit(2);
}
const require = createRequire(join(resolve(nodeDir), 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

async function connect(flags) {
  const client = new Client({ name: 'apidex-e2e reads', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--db', db, ...flags], env: process.env, stderr: 'ignore' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}
// the processes apidex mcp started (its children)
function children(pid) {
  try {
    return execFileSync('ps', ['--ppid', String(pid), '-o', 'pid='], { encoding: 'utf8' }).split('\n').map((s) => s.trim()).filter(Boolean);
  } catch {
    return [];
  }
}
const call = (c, args) => c.callTool({ name: 'call_endpoint', arguments: args });
const doc = { endpoint: 'everything:resource:architecture.md' };

// 1. off by default, for reads too
let { client: c } = await connect([]);
await assert.rejects(call(c, doc), /--allow-calls/);
await c.close();
console.log('ok resources and prompts not read without --allow-calls');

// 2. reads: no --allow-write needed
let pid;
({ client: c, pid } = await connect(['--allow-calls']));
let r = await call(c, doc);
assert.ok(!r.isError, JSON.stringify(r));
assert.match(r.structuredContent.body, /Architecture/);
assert.equal(r.structuredContent.resource, 'everything:resource:architecture.md');
assert.equal(r.structuredContent.uri, 'demo://resource/static/document/architecture.md');
const first = children(pid);
assert.equal(first.length, 1, `one server process after the first call: ${first}`);
r = await call(c, { endpoint: 'everything:resource:Dynamic Text Resource', params: { resourceId: 42 } });
assert.ok(!r.isError, JSON.stringify(r));
assert.equal(r.structuredContent.uri, 'demo://resource/dynamic/text/42');
assert.match(r.structuredContent.body, /^Resource 42: /);
r = await call(c, { endpoint: 'everything:prompt:args-prompt', params: { city: 'Oslo', state: 'Viken' } });
assert.ok(!r.isError, JSON.stringify(r));
assert.equal(r.structuredContent.prompt, 'everything:prompt:args-prompt');
assert.equal(r.structuredContent.body.messages[0].content.text, "What's weather in Oslo, Viken?");
assert.deepEqual(children(pid), first, 'the three calls went through the one server process');
console.log('ok resource, template and prompt read through one kept-open server process');

// 3. refusals: nothing the index does not hold, no argument the entry does not declare
r = await call(c, { endpoint: 'everything:prompt:args-prompt', params: { state: 'Viken' } });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /prompt everything:prompt:args-prompt: missing required argument 'city'/);
r = await call(c, { endpoint: 'everything:resource:architecture.md', params: { uri: 'file:///etc/passwd' } });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /unknown argument 'uri' for resource everything:resource:architecture.md/);
r = await call(c, { endpoint: 'everything:resource:passwd' });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /no endpoint with id 'everything:resource:passwd' in the index/);
r = await call(c, { endpoint: 'everything:prompt:args-prompt', params: { city: { nested: true } } });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /argument 'city': expected a string, got an object/);
console.log('ok missing, undeclared and object arguments and an unknown resource refused');

// 4. the server died: the next call starts it again
process.kill(Number(first[0]), 'SIGKILL');
// dead: gone, or a zombie apidex has not waited for yet whose files are closed (a call racing
// the death fails). The leader of a threaded process shows Z while its other threads still
// exit and hold its pipes open, so the state alone is not enough: it must be its last thread.
const dead = (p) => {
  try {
    if (!/ Z /.test(readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\)/, ')'))) return false;
    return readdirSync(`/proc/${p}/task`).length <= 1;
  } catch { return true; }
};
for (let i = 0; i < 100 && !dead(first[0]); i++) await new Promise((ok) => setTimeout(ok, 50));
r = await call(c, { endpoint: 'everything:echo', params: { message: 'again' } });
assert.equal(r.structuredContent?.body, 'Echo: again', JSON.stringify(r));
const second = children(pid);
assert.equal(second.length, 1, `one server process again: ${second}`);
assert.notEqual(second[0], first[0]);
await c.close();
console.log('ok a server that died is started again by the next call');
