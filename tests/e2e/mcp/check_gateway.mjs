// apidex mcp as the one MCP server a client configures (the gateway, docs/MCP-SOURCES.md):
// call_endpoint through the official MCP SDK (v1, stdio) calls the tools of the MCP servers
// apidex indexed: absent and refused without --allow-calls; a read-only tool's real result;
// a write refused until --allow-write, then made; arguments checked against the tool's
// inputSchema; the config's secret masked.
// usage: node check_gateway.mjs <tools/node dir> <apidex> <db> <a text file> <secret>
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';

const [nodeDir, bin, db, file, secret] = process.argv.slice(2);
if (!secret) {
  console.error('usage: check_gateway.mjs <tools/node dir> <apidex> <db> <a text file> <secret>');
  process.exit(2);
}
const require = createRequire(join(resolve(nodeDir), 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

async function connect(flags) {
  const client = new Client({ name: 'apidex-e2e gateway', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: bin, args: ['mcp', '--db', db, ...flags], env: process.env, stderr: 'ignore' }));
  return client;
}
const read = { endpoint: 'filesystem:read_text_file', params: { path: file } };

// 1. off by default
let c = await connect([]);
assert.ok(!(await c.listTools()).tools.some((t) => t.name === 'call_endpoint'));
await assert.rejects(c.callTool({ name: 'call_endpoint', arguments: read }), /--allow-calls/);
await c.close();
console.log('ok call_endpoint absent and refused without --allow-calls');

// 2. read-only: the server's own result; search finds the tool first
c = await connect(['--allow-calls']);
const found = await c.callTool({ name: 'search_endpoints', arguments: { task: 'read the text of a file', k: 3 } });
assert.ok(found.structuredContent.results.some((x) => x.id === 'filesystem:read_text_file'), JSON.stringify(found.structuredContent.results.map((x) => x.id)));
let r = await c.callTool({ name: 'call_endpoint', arguments: read });
assert.ok(!r.isError, JSON.stringify(r));
assert.equal(r.structuredContent.body.content, readFileSync(file, 'utf8'));
assert.equal(r.structuredContent.tool, 'filesystem:read_text_file');
assert.equal(r.structuredContent.is_error, false);
r = await c.callTool({ name: 'call_endpoint', arguments: { endpoint: 'everything:echo', params: { message: 'through the gateway' } } });
assert.equal(r.structuredContent.body, 'Echo: through the gateway', JSON.stringify(r));
console.log('ok read-only tools answer with their servers\' results');

// 3. a write refused by the read-only rule, naming it; nothing was made
const ent = { endpoint: 'memory:create_entities', params: { entities: [{ name: 'Grace', entityType: 'person', observations: ['sailed'] }] } };
r = await c.callTool({ name: 'call_endpoint', arguments: ent });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /tool memory:create_entities refused \(rule: read-only; .*--allow-write to allow\)/);
r = await c.callTool({ name: 'call_endpoint', arguments: { endpoint: 'memory:read_graph' } });
assert.ok(!JSON.stringify(r.structuredContent.body).includes('Grace'), JSON.stringify(r.structuredContent));
console.log('ok create_entities refused without --allow-write');

// 4. arguments checked before anything is called
r = await c.callTool({ name: 'call_endpoint', arguments: { endpoint: 'calls:reveal', params: {} } });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /missing required argument 'n'/);
r = await c.callTool({ name: 'call_endpoint', arguments: { endpoint: 'calls:reveal', params: { n: 'x' } } });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /argument 'n': expected integer, got string/);
// the call: the config's secret never shown
r = await c.callTool({ name: 'call_endpoint', arguments: { endpoint: 'calls:reveal', params: { n: 5 } } });
assert.equal(r.structuredContent.body, 'token is ****, n=5', JSON.stringify(r));
assert.ok(!JSON.stringify(r).includes(secret), 'the secret is masked');
await c.close();
console.log('ok arguments validated, secret masked');

// 5. --allow-write: the write is made and a read shows it
c = await connect(['--allow-calls', '--allow-write']);
r = await c.callTool({ name: 'call_endpoint', arguments: ent });
assert.ok(!r.isError, JSON.stringify(r));
r = await c.callTool({ name: 'call_endpoint', arguments: { endpoint: 'memory:read_graph' } });
assert.ok(r.structuredContent.body.entities.some((e) => e.name === 'Grace'), JSON.stringify(r.structuredContent));
await c.close();
console.log('ok create_entities made with --allow-write, read_graph shows it');
