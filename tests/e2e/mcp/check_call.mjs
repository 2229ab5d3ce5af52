// call_endpoint through the official MCP SDK (v1, stdio) against `apidex mock`: absent (and
// refused) without --allow-calls; with it, listed with read-only annotations, answering with
// the response `apidex call --json` shapes; a POST refused by the read-only rule until
// --allow-write (whose annotations say destructive); the loopback mock refused without
// --allow-address; inputs checked against the spec; a dry run with the credential masked.
// usage: node check_call.mjs <tools/node dir> <apidex> <db> <mock url> <tmdb api id> <spotify api id>
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';

const [nodeDir, bin, db, mock, tmdb, spotify] = process.argv.slice(2);
if (!spotify) {
  console.error('usage: check_call.mjs <tools/node dir> <apidex> <db> <mock url> <tmdb> <spotify>');
  process.exit(2);
}
const require = createRequire(join(resolve(nodeDir), 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const mockHost = new URL(mock).host;
const secret = 'tmdb-s3cret-for-mcp';
const env = { ...process.env, APIDEX_AUTH_THEMOVIEDB_API_KEY: secret };

async function connect(flags) {
  const client = new Client({ name: 'apidex-e2e call', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: bin, args: ['mcp', '--db', db, ...flags], env, stderr: 'ignore' }));
  return client;
}
const top = { endpoint: 'GET /movie/top_rated', api: tmdb, server: `${mock}/3`, params: { page: 1 }, select: '$.results[*].title', max_items: 3 };

// 1. off by default: not listed, and a call is a protocol error naming the flag
let c = await connect([]);
let tools = (await c.listTools()).tools.map((t) => t.name);
assert.ok(!tools.includes('call_endpoint'), tools.join(','));
await assert.rejects(c.callTool({ name: 'call_endpoint', arguments: top }), /--allow-calls/);
await c.close();
console.log('ok call_endpoint absent and refused without --allow-calls');

// 2. read-only server
// the mock's origin named in full: the API's credentials may go there (a bare host would only be reached)
c = await connect(['--allow-calls', '--allow-address', '127.0.0.1', '--allow-host', mock]);
let tool = (await c.listTools()).tools.find((t) => t.name === 'call_endpoint');
assert.ok(tool, 'call_endpoint listed with --allow-calls');
assert.equal(tool.annotations.readOnlyHint, true);
assert.equal(tool.annotations.destructiveHint, false);
assert.equal(tool.annotations.openWorldHint, true);
assert.deepEqual(tool.inputSchema.required, ['endpoint']);
console.log('ok listed, annotations read-only');

let r = await c.callTool({ name: 'call_endpoint', arguments: top });
assert.ok(!r.isError, JSON.stringify(r));
const got = r.structuredContent;
assert.deepEqual(JSON.parse(r.content[0].text), got);
assert.equal(got.status, 200);
assert.equal(got.url, `${mock}/3/movie/top_rated?page=1&api_key=****`);
assert.ok(Array.isArray(got.body.items ?? got.body) || typeof got.body === 'object', JSON.stringify(got.body));
assert.equal(got.schema.checked, true);
assert.ok(!JSON.stringify(r).includes(secret), 'the secret is masked');
// the same shaped response as `apidex call --json` (same flags)
const cli = JSON.parse(execFileSync(bin, ['call', 'GET /movie/top_rated', '--api', tmdb, '--server', `${mock}/3`, '-p', 'page=1',
  '--select', '$.results[*].title', '--max-items', '3', '--allow-address', '127.0.0.1', '--allow-host', mock, '--json', '--db', db],
  { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'ignore'] }));
assert.deepEqual(got, cli);
console.log(`ok GET answered as apidex call --json: ${JSON.stringify(got.body).slice(0, 80)}`);

// an id from search_endpoints works as well, and pagination hints come through
const search = await c.callTool({ name: 'search_endpoints', arguments: { task: 'top rated movies', apis: [tmdb], k: 3 } });
const id = search.structuredContent.results.find((x) => x.endpoint === 'GET /movie/top_rated').id;
r = await c.callTool({ name: 'call_endpoint', arguments: { endpoint: id, server: `${mock}/3`, budget: 300 } });
assert.ok(!r.isError, JSON.stringify(r));
assert.equal(r.structuredContent.status, 200);
assert.ok(r.structuredContent.pagination, JSON.stringify(r.structuredContent).slice(0, 400));
assert.ok(r.structuredContent.tokens.shown <= 300, JSON.stringify(r.structuredContent.tokens));
console.log(`ok by id ${id}, budget 300: ${r.structuredContent.tokens.shown} tokens shown`);

// POST refused by the read-only rule, naming it
const post = { endpoint: 'POST /users/{user_id}/playlists', api: spotify, server: `${mock}/v1`, params: { user_id: 'me', name: 'Road trip' } };
r = await c.callTool({ name: 'call_endpoint', arguments: post });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /method POST refused \(rule: read-only; --allow-write to allow\)/);
console.log('ok POST refused: ' + r.content[0].text);

// inputs checked against the spec before sending
r = await c.callTool({ name: 'call_endpoint', arguments: { endpoint: 'GET /movie/{movie_id}/credits', api: tmdb, server: `${mock}/3`, params: { movie_id: 'fight-club' } } });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /parameter 'movie_id' \(path\): expected integer, got string/);
r = await c.callTool({ name: 'call_endpoint', arguments: { endpoint: 'GET /nowhere', api: tmdb } });
assert.equal(r.isError, true);
r = await c.callTool({ name: 'call_endpoint', arguments: { endpoint: 'GET /movie/top_rated', api: tmdb, bogus: 1 } });
assert.match(r.content[0].text, /unknown argument 'bogus'/);
console.log('ok bad inputs are tool errors naming the parameter and the rule');

// a server argument cannot widen the hosts
r = await c.callTool({ name: 'call_endpoint', arguments: { ...top, server: 'http://127.0.0.2:9/3' } });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /rule: origin; the server 'http:\/\/127.0.0.2:9\/3' goes to http:\/\/127.0.0.2:9, which is not an origin of the API/);
console.log('ok a foreign server refused: ' + r.content[0].text);

// dry run: the request with the key masked and a curl command reading it from its variable
r = await c.callTool({ name: 'call_endpoint', arguments: { endpoint: 'GET /movie/top_rated', api: tmdb, params: { page: 2 }, dry_run: true } });
assert.ok(!r.isError, JSON.stringify(r));
assert.equal(r.structuredContent.dry_run, true);
assert.equal(r.structuredContent.url, 'https://api.themoviedb.org/3/movie/top_rated?page=2&api_key=****');
assert.match(r.structuredContent.curl, /\$APIDEX_AUTH_THEMOVIEDB_API_KEY/);
assert.ok(!JSON.stringify(r).includes(secret));
console.log('ok dry run masked');
await c.close();

// 3. the loopback mock refused without --allow-address
c = await connect(['--allow-calls', '--allow-host', mockHost]);
r = await c.callTool({ name: 'call_endpoint', arguments: top });
assert.equal(r.isError, true);
assert.match(r.content[0].text, /loopback.*rule: no private addresses/);
await c.close();
console.log('ok loopback refused: ' + r.content[0].text);

// 4. --allow-write: annotations say so, and the POST goes through
c = await connect(['--allow-calls', '--allow-write', '--allow-address', '127.0.0.1', '--allow-host', mockHost]);
tool = (await c.listTools()).tools.find((t) => t.name === 'call_endpoint');
assert.equal(tool.annotations.readOnlyHint, false);
assert.equal(tool.annotations.destructiveHint, true);
assert.equal(tool.annotations.openWorldHint, true);
r = await c.callTool({ name: 'call_endpoint', arguments: post });
assert.ok(!r.isError, JSON.stringify(r));
assert.ok(r.structuredContent.status >= 200 && r.structuredContent.status < 300, JSON.stringify(r.structuredContent).slice(0, 300));
assert.equal(r.structuredContent.body.name, 'Road trip');
await c.close();
console.log(`ok --allow-write: POST answered ${r.structuredContent.status}`);
