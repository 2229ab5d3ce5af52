// get_endpoint's detail levels through the official MCP SDK (v1, stdio): each level's
// structuredContent (checked by the SDK against the tool's outputSchema) equals
// `apidex show --json --detail LEVEL`, and an unknown level is a tool error naming the levels.
// usage: node check_detail.mjs <tools/node dir> <apidex> <db> <endpoint id>
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';

const [nodeDir, bin, db, id] = process.argv.slice(2);
if (!id) {
  console.error('usage: check_detail.mjs <tools/node dir> <apidex> <db> <endpoint id>');
  process.exit(2);
}
const require = createRequire(join(resolve(nodeDir), 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const show = (level) =>
  JSON.parse(execFileSync(bin, ['show', id, '--db', db, '--json', ...(level ? ['--detail', level] : [])], { encoding: 'utf8' }));

const client = new Client({ name: 'apidex-e2e detail', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: bin, args: ['mcp', '--db', db], stderr: 'ignore' }));
const { tools } = await client.listTools();
const ge = tools.find((t) => t.name === 'get_endpoint');
assert.deepEqual(ge.inputSchema.properties.detail.enum, ['summary', 'call', 'full']);

for (const level of [undefined, 'summary', 'call', 'full']) {
  const args = level ? { id, detail: level } : { id };
  const r = await client.callTool({ name: 'get_endpoint', arguments: args });
  assert.ok(!r.isError, JSON.stringify(r));
  assert.deepEqual(r.structuredContent, show(level), `detail ${level}`);
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
  assert.equal(r.structuredContent.detail, level ?? 'call');
  console.log(`ok get_endpoint detail=${level ?? '(default)'}: ${r.content[0].text.length} bytes`);
}
const call = (await client.callTool({ name: 'get_endpoint', arguments: { id } })).structuredContent;
assert.equal(call.request_body.schema.properties.Channel.enum.length, 20);
assert.ok(call.inputs.some((i) => i.name === 'To' && i.in === 'body'));
assert.equal(call.servers[0].variables.region.default, 'eu-west');
const bad = await client.callTool({ name: 'get_endpoint', arguments: { id, detail: 'everything' } });
assert.equal(bad.isError, true);
assert.match(bad.content[0].text, /summary, call or full/);
console.log('ok get_endpoint unknown detail');
await client.close();
