// The answer's match and confidence are the same through the CLI, HTTP and MCP: for each task,
// `apidex search --json`, GET /v1/search and the MCP tool search_endpoints (the official SDK,
// stdio; the SDK checks structuredContent against the tool's outputSchema) carry the same
// "match", "confidence", "note" and "closest_apis", and each endpoint the same confidence.
// usage: node check_confidence.mjs <tools/node dir> <apidex> <db> <base URL> <expect.json>
//   expect.json: [{"task": "...", "match": "strong" | "weak" | "none"}, ...]
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';

const [nodeDir, bin, db, base, expectFile] = process.argv.slice(2);
if (!expectFile) {
  console.error('usage: check_confidence.mjs <tools/node dir> <apidex> <db> <base URL> <expect.json>');
  process.exit(2);
}
const require = createRequire(join(resolve(nodeDir), 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const K = 5;
const verdict = (r) => ({
  match: r.match,
  confidence: r.confidence,
  note: r.note ?? null,
  closest_apis: r.closest_apis ?? null,
  hits: Object.fromEntries(r.results.map((h) => [h.id, h.confidence])),
});

const client = new Client({ name: 'apidex-e2e confidence', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: bin, args: ['mcp', '--db', db], stderr: 'ignore' }));
const { tools } = await client.listTools();
const tool = tools.find((t) => t.name === 'search_endpoints');
assert.ok(tool, 'search_endpoints is listed');
assert.deepEqual(tool.outputSchema.properties.match.enum, ['strong', 'weak', 'none']);
assert.ok(tool.outputSchema.required.includes('match') && tool.outputSchema.required.includes('confidence'));

let failed = 0;
for (const { task, match } of JSON.parse(readFileSync(expectFile, 'utf8'))) {
  for (const adaptive of [false, true]) {
    const what = `${JSON.stringify(task)}${adaptive ? ' (adaptive)' : ''}`;
    try {
      const args = ['search', task, '--db', db, '--json', ...(adaptive ? ['--adaptive'] : ['-k', String(K)])];
      const cli = verdict(JSON.parse(execFileSync(bin, args, { encoding: 'utf8' })));
      const qs = new URLSearchParams({ q: task, ...(adaptive ? { adaptive: 'true' } : { k: String(K) }) });
      const res = await fetch(`${base}/v1/search?${qs}`);
      assert.equal(res.status, 200, `GET /v1/search: ${res.status}`);
      const http = verdict(await res.json());
      const r = await client.callTool({ name: 'search_endpoints', arguments: { task, ...(adaptive ? { adaptive: true } : { k: K }) } });
      assert.ok(!r.isError, JSON.stringify(r));
      assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent, 'MCP text = structuredContent');
      const mcp = verdict(r.structuredContent);
      assert.equal(cli.match, match, `expected the match ${match}, the CLI says ${cli.match}`);
      assert.ok(cli.confidence >= 0 && cli.confidence <= 1);
      assert.deepEqual(http, cli, 'HTTP = CLI');
      assert.deepEqual(mcp, cli, 'MCP = CLI');
      if (match === 'none') assert.match(cli.note, /^Nothing in this registry fits the task\./);
      if (match === 'weak') assert.match(cli.note, /^Weak match \(confidence /);
      if (match === 'strong') assert.equal(cli.note, null);
      console.log(`ok ${what}: ${cli.match} ${cli.confidence} through the CLI, HTTP and MCP`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${what}: ${e.message}`);
    }
  }
}
await client.close();
process.exit(failed ? 1 : 0);
