// match_spec through the official MCP SDK (v1, stdio): the document as an object and as YAML
// text gives what `apidex match --json` prints (the SDK checks structuredContent against the
// tool's outputSchema); a broken document and bad arguments are tool errors.
// usage: node check_match.mjs <tools/node dir> <apidex> <db> <document.json> <document.yaml>
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';

const [nodeDir, bin, db, docJson, docYaml] = process.argv.slice(2);
if (!docYaml) {
  console.error('usage: check_match.mjs <tools/node dir> <apidex> <db> <document.json> <document.yaml>');
  process.exit(2);
}
const require = createRequire(join(resolve(nodeDir), 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

// the CLI's answer without its timings (they differ run to run)
const strip = (o) => {
  const c = structuredClone(o);
  delete c.elapsed_ms;
  delete c.features_ms;
  return c;
};
const cli = (file) =>
  strip(JSON.parse(execFileSync(bin, ['match', file, '--db', db, '--json', '--k', '3'], { encoding: 'utf8' })));

const client = new Client({ name: 'apidex-e2e match', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: bin, args: ['mcp', '--db', db], stderr: 'ignore' }));
const { tools } = await client.listTools();
const tool = tools.find((t) => t.name === 'match_spec');
assert.ok(tool, 'match_spec is listed');
assert.deepEqual(tool.inputSchema.required, ['document']);

let r = await client.callTool({ name: 'match_spec', arguments: { document: JSON.parse(readFileSync(docJson, 'utf8')), k: 3 } });
assert.ok(!r.isError, JSON.stringify(r));
assert.deepEqual(strip(r.structuredContent), cli(docJson));
assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
const fc = r.structuredContent.operations.find((o) => o.path === '/stations/{station_id}/forecast');
assert.equal(fc.candidates[0].id, 'open-weather-station:getForecast');
console.log('ok match_spec with the document as an object = apidex match --json');

r = await client.callTool({ name: 'match_spec', arguments: { document: readFileSync(docYaml, 'utf8'), k: 3 } });
assert.ok(!r.isError, JSON.stringify(r));
assert.deepEqual(strip(r.structuredContent), cli(docYaml));
console.log('ok match_spec with the document as YAML text = apidex match --json');

r = await client.callTool({ name: 'match_spec', arguments: { document: 'openapi: 3.0.0\npaths:\n  /a: [\n' } });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /^document:\d+:\d+: /);
console.log('ok match_spec broken YAML: ' + r.content[0].text);
r = await client.callTool({ name: 'match_spec', arguments: {} });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /document is required/);
r = await client.callTool({ name: 'match_spec', arguments: { document: {}, threshold: 2 } });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /threshold/);
r = await client.callTool({ name: 'match_spec', arguments: { document: {}, extra: 1 } });
assert.equal(r.isError, true);
console.log('ok match_spec argument errors');
await client.close();
