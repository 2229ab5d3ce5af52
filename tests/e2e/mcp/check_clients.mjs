// End-to-end check of apidex's MCP server with the official TypeScript SDKs as clients:
// @modelcontextprotocol/sdk (v1, protocol 2025-11-25) and @modelcontextprotocol/client
// (v2: legacy mode = 2025-11-25 handshake, auto and pinned = 2026-07-28, stateless).
// For each client it lists tools, resources, templates and prompts, calls every tool, reads
// resources, gets the prompt, completes its arguments and the templates' ids, and compares
// the answers with what the apidex CLI says about the same index (the expectation file
// written by the calling test script).
//
// With APIDEX_BIN, APIDEX_E2E_SPECS and APIDEX_E2E_DB set, the 2026-07-28 clients also
// open a subscriptions/listen stream, rebuild the index and wait for the change.
//
// usage: node check_clients.mjs <tools/node dir> <expect.json> stdio <apidex> <db>
//        node check_clients.mjs <tools/node dir> <expect.json> http <url> [token]
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';

const [nodeDir, expectPath, transport, target, extra] = process.argv.slice(2);
if (!transport || !target) {
  console.error('usage: check_clients.mjs <tools/node dir> <expect.json> stdio|http <target> [...]');
  process.exit(2);
}
const require = createRequire(join(resolve(nodeDir), 'package.json'));
const v1 = {
  Client: require('@modelcontextprotocol/sdk/client/index.js').Client,
  Stdio: require('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport,
  Http: require('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport,
};
const v2mod = require('@modelcontextprotocol/client');
const v2 = {
  Client: v2mod.Client,
  Stdio: require('@modelcontextprotocol/client/stdio').StdioClientTransport,
  Http: v2mod.StreamableHTTPClientTransport,
};
const expect = JSON.parse(readFileSync(expectPath, 'utf8'));

function makeTransport(sdk) {
  if (transport === 'stdio')
    return new sdk.Stdio({ command: target, args: ['mcp', '--db', extra], stderr: 'ignore' });
  const headers = extra ? { Authorization: `Bearer ${extra}` } : {};
  return new sdk.Http(new URL(target), { requestInit: { headers } });
}

const variants = [
  { name: 'sdk-v1', sdk: v1, revision: '2025-11-25', options: {} },
  { name: 'client-v2 legacy', sdk: v2, revision: '2025-11-25', options: { versionNegotiation: { mode: 'legacy' } } },
  { name: 'client-v2 auto', sdk: v2, revision: '2026-07-28', options: { versionNegotiation: { mode: 'auto' } } },
  { name: 'client-v2 pinned', sdk: v2, revision: '2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
];

const ids = (results) => results.map((r) => r.id);

async function expectProtocolError(promise, code, what) {
  try {
    await promise;
  } catch (e) {
    assert.equal(e.code, code, `${what}: error code ${e.code} (${e.message})`);
    return;
  }
  assert.fail(`${what}: no error`);
}

async function check(v) {
  const client = new v.sdk.Client({ name: `apidex-e2e ${v.name}`, version: '1.0.0' }, v.options);
  const t = makeTransport(v.sdk);
  await client.connect(t);
  if (client.getNegotiatedProtocolVersion) assert.equal(client.getNegotiatedProtocolVersion(), v.revision);
  else if (t.protocolVersion) assert.equal(t.protocolVersion, v.revision);
  assert.equal(client.getServerVersion().name, 'apidex');
  assert.match(client.getInstructions() ?? '', /search_endpoints/);
  if (transport === 'http') assert.equal(Boolean(t.sessionId), v.revision < '2026-07-28', 'sessions only in the 2025 era');

  // Tools: the six, with schemas, annotations and output schemas (report_usage records).
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((x) => x.name), ['search_endpoints', 'get_endpoint', 'list_apis', 'ask_api', 'get_tool_definitions', 'match_spec', 'report_usage']);
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, 'object');
    assert.ok(tool.outputSchema, `${tool.name} has an output schema`);
    assert.equal(tool.annotations.readOnlyHint, tool.name !== 'report_usage');
    assert.ok(tool.description.length > 80);
  }
  assert.deepEqual(tools[0].inputSchema.required, ['task']);

  // search_endpoints = `apidex search --json` on the same index.
  let r = await client.callTool({ name: 'search_endpoints', arguments: { task: expect.task, k: 5 } });
  assert.ok(!r.isError, JSON.stringify(r));
  assert.deepEqual(ids(r.structuredContent.results), expect.search_k5);
  assert.deepEqual(r.structuredContent.plan, expect.plan_k5, 'the same plan as the CLI');
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
  for (const hit of r.structuredContent.results) assert.match(hit.endpoint, /^[A-Z]+ \//);
  r = await client.callTool({ name: 'search_endpoints', arguments: { task: expect.task, adaptive: true } });
  assert.deepEqual(ids(r.structuredContent.results), expect.search_adaptive);
  assert.deepEqual(r.structuredContent.plan, expect.plan_adaptive, 'the same plan as the CLI');
  assert.ok(expect.plan_adaptive.length > 0, 'the task has a plan');
  r = await client.callTool({ name: 'search_endpoints', arguments: { task: expect.task, apis: [expect.other_api], k: 3 } });
  for (const hit of r.structuredContent.results) assert.equal(hit.api, expect.other_api);

  // get_endpoint = `apidex show --json`.
  r = await client.callTool({ name: 'get_endpoint', arguments: { id: expect.endpoint.id } });
  assert.ok(!r.isError, JSON.stringify(r));
  const ep = r.structuredContent;
  assert.equal(ep.id, expect.endpoint.id);
  assert.equal(ep.method, expect.endpoint.method);
  assert.equal(ep.path, expect.endpoint.path);
  assert.deepEqual(ep, expect.endpoint);
  r = await client.callTool({ name: 'get_endpoint', arguments: { method: ep.method, path: ep.path, api: ep.api } });
  assert.equal(r.structuredContent.id, ep.id);
  r = await client.callTool({ name: 'get_endpoint', arguments: { id: 'no:such endpoint' } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /no endpoint/);

  // list_apis: the APIs of `apidex list --json`, largest first, one line each.
  r = await client.callTool({ name: 'list_apis', arguments: {} });
  const apis = r.structuredContent.apis.map((a) => [a.id, Number(/: (\d+) operation/.exec(a.about)[1])]);
  assert.deepEqual(apis, [...expect.apis].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)));
  assert.equal(r.structuredContent.nextCursor, undefined);

  // ask_api = `apidex ask --context-only --json` (the server runs without an LLM here).
  r = await client.callTool({ name: 'ask_api', arguments: { task: expect.task, budget: 3000 } });
  assert.ok(!r.isError, JSON.stringify(r));
  const ask = r.structuredContent;
  assert.deepEqual(ids(ask.endpoints), expect.ask.endpoints);
  assert.equal(ask.context, expect.ask.context);
  assert.equal(ask.context_tokens, expect.ask.context_tokens);
  assert.ok(ask.context_tokens <= 3000);
  assert.equal(ask.llm_used, false);
  assert.equal(ask.answer, null);
  for (const e of ask.endpoints) assert.ok(ask.context.includes(e.endpoint.split(' ')[1]));
  r = await client.callTool({ name: 'ask_api', arguments: { task: '' } });
  assert.equal(r.isError, true);

  // get_tool_definitions = `apidex tools --format anthropic --search TASK -k 3`.
  r = await client.callTool({ name: 'get_tool_definitions', arguments: { task: expect.task, k: 3, format: 'anthropic' } });
  assert.ok(!r.isError, JSON.stringify(r));
  assert.deepEqual(r.structuredContent, expect.tools);
  r = await client.callTool({ name: 'get_tool_definitions', arguments: { ids: [expect.endpoint.id] } });
  assert.equal(r.structuredContent.tools[0].function.strict, true);
  assert.equal(Object.values(r.structuredContent.calls)[0].id, expect.endpoint.id);
  r = await client.callTool({ name: 'get_tool_definitions', arguments: { ids: [expect.endpoint.id], format: 'xml' } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /openai, anthropic or mcp/);

  // Protocol errors.
  await expectProtocolError(client.callTool({ name: 'no_such_tool', arguments: {} }), -32602, 'unknown tool');

  // Resources: one per API, two templates, both kinds readable.
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((x) => x.uri), expect.apis.map(([id]) => `apidex://apis/${encodeURIComponent(id)}`));
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((x) => x.uriTemplate), ['apidex://apis/{api}', 'apidex://endpoints/{id}']);
  let rd = await client.readResource({ uri: resources[0].uri });
  const api = JSON.parse(rd.contents[0].text);
  assert.equal(api.id, expect.apis[0][0]);
  assert.equal(api.operations.length, expect.apis[0][1]);
  rd = await client.readResource({ uri: api.operations[0].uri });
  assert.equal(JSON.parse(rd.contents[0].text).id, api.operations[0].id);
  rd = await client.readResource({ uri: `apidex://endpoints/${encodeURIComponent(expect.endpoint.id)}` });
  assert.deepEqual(JSON.parse(rd.contents[0].text), expect.endpoint);
  // -32002 in the 2025 era, -32602 since 2026-07-28 (the v2 client reports both as -32602)
  try {
    await client.readResource({ uri: 'apidex://endpoints/nope' });
    assert.fail('unknown resource read');
  } catch (e) {
    assert.ok(e.code === -32002 || e.code === -32602, `unknown resource: ${e.code}`);
  }
  // Prompts: plan_api_calls carries the search answer with each endpoint's calling details.
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name), ['plan_api_calls']);
  assert.deepEqual(prompts[0].arguments.map((a) => [a.name, Boolean(a.required)]), [['task', true], ['api', false], ['tag', false]]);
  const plan = await client.getPrompt({ name: 'plan_api_calls', arguments: { task: expect.task } });
  assert.equal(plan.messages.length, 1);
  assert.equal(plan.messages[0].role, 'user');
  const text = plan.messages[0].content.text;
  assert.ok(text.includes(expect.task), text);
  // the plan of the search answer, in call order, with the primary endpoint's URL path and parameters
  const at = expect.plan_adaptive.map((s) => text.indexOf(`${s.id} (`));
  assert.ok(at.every((i) => i >= 0), `every step in the plan: ${text}`);
  assert.deepEqual([...at].sort((a, b) => a - b), at, 'in call order');
  assert.ok(text.includes(`${expect.endpoint.method} http`) && text.includes(expect.endpoint.path), text);
  assert.match(text, /Parameters:/);
  assert.match(text, /get_endpoint/);
  const scoped = await client.getPrompt({ name: 'plan_api_calls', arguments: { task: expect.task, api: expect.other_api } });
  assert.ok(scoped.messages[0].content.text.includes(`searched the API ${expect.other_api}`));
  if (expect.other_api !== expect.endpoint.api) assert.ok(!scoped.messages[0].content.text.includes(`${expect.endpoint.api}:`));
  await expectProtocolError(client.getPrompt({ name: 'no_such_prompt' }), -32602, 'unknown prompt');
  await expectProtocolError(client.getPrompt({ name: 'plan_api_calls', arguments: { task: ' ' } }), -32602, 'empty task');
  await expectProtocolError(client.getPrompt({ name: 'plan_api_calls', arguments: { task: 'x', api: 'no_such_api' } }), -32602, 'unknown api');

  // Completion: API ids, tags (of the API chosen so far) and endpoint ids.
  const promptRef = { type: 'ref/prompt', name: 'plan_api_calls' };
  let done = await client.complete({ ref: promptRef, argument: { name: 'api', value: '' } });
  assert.deepEqual(done.completion.values, expect.apis.map(([id]) => id));
  assert.equal(done.completion.total, expect.apis.length);
  done = await client.complete({ ref: { type: 'ref/resource', uri: 'apidex://apis/{api}' }, argument: { name: 'api', value: expect.endpoint.api.slice(0, 2) } });
  assert.ok(done.completion.values.includes(expect.endpoint.api));
  const tag = expect.endpoint.tags[0];
  done = await client.complete({ ref: promptRef, argument: { name: 'tag', value: tag.slice(0, 3) }, context: { arguments: { api: expect.endpoint.api } } });
  assert.ok(done.completion.values.includes(tag), JSON.stringify(done));
  done = await client.complete({ ref: { type: 'ref/resource', uri: 'apidex://endpoints/{id}' }, argument: { name: 'id', value: expect.endpoint.id.slice(0, -3) } });
  assert.ok(done.completion.values.includes(expect.endpoint.id), JSON.stringify(done));
  assert.equal(done.completion.hasMore, false);
  await expectProtocolError(client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }), -32602, 'unknown prompt ref');

  // Subscriptions (2026-07-28): a rebuilt index reaches the listen stream.
  if (v.revision >= '2026-07-28' && process.env.APIDEX_E2E_SPECS) {
    const seen = [];
    client.setNotificationHandler('notifications/resources/list_changed', (n) => seen.push(['list', n.params]));
    client.setNotificationHandler('notifications/resources/updated', (n) => seen.push(['updated', n.params]));
    const uri = resources[0].uri;
    const sub = await client.listen({ resourcesListChanged: true, promptsListChanged: true, resourceSubscriptions: [uri] });
    assert.deepEqual(sub.honoredFilter, { resourcesListChanged: true, resourceSubscriptions: [uri] });
    execFileSync(process.env.APIDEX_BIN, ['index', process.env.APIDEX_E2E_SPECS, '--db', process.env.APIDEX_E2E_DB, '--full', '--quiet']);
    for (let i = 0; i < 80 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(seen.map(([k]) => k).sort(), ['list', 'updated'], JSON.stringify(seen));
    assert.equal(seen.find(([k]) => k === 'updated')[1].uri, uri);
    await sub.close();
  }
  await client.close();
  console.log(`ok ${transport} ${v.name} (${v.revision})`);
}

let failed = 0;
for (const v of variants) {
  try {
    await check(v);
  } catch (e) {
    failed++;
    console.error(`FAIL ${transport} ${v.name}: ${e.stack ?? e}`);
  }
}
process.exit(failed ? 1 : 0);
