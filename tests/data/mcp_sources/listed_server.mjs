// A stdio MCP server (the official TypeScript SDK) whose tool list is a JSON file: tools/list
// answers the file's {"name": ..., "tools": [...]} as it is now, and the server declares
// tools.listChanged and sends notifications/tools/list_changed when the file changes, so the
// tests can change a server's tools while it runs or between two indexings. SIGUSR1 adds a
// tool held in this process only (ring_bell), with list_changed: a client that reads the
// list again from a fresh process would not see it. Each start appends a line to the file
// $LISTED_STARTS when it is set, so a test can count the processes started.
// With a third argument it serves Streamable HTTP instead of stdio (the SDK's transport, one
// session per client), on 127.0.0.1 at a free port written to PORT_FILE: "http:PORT_FILE"
// (list_changed goes out on each session's GET event stream), or "http-nostream:PORT_FILE"
// (a GET is answered 405: no stream). Each GET is appended to PORT_FILE.log with the answer
// it got. SIGUSR2 forgets every session (as a restarted server does: 404 to their ids).
// usage: node listed_server.mjs <tools/node dir> <tools.json> [http:PORT_FILE]
import { createRequire } from 'node:module';
import { appendFileSync, readFileSync, watchFile, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';

const [nodeDir, file, http] = process.argv.slice(2);
if (!file) {
  console.error('usage: listed_server.mjs <tools/node dir> <tools.json>');
  process.exit(2);
}
const require = createRequire(join(resolve(nodeDir), 'package.json'));
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

if (process.env.LISTED_STARTS) appendFileSync(process.env.LISTED_STARTS, `${file}\n`);
const extra = [];
const read = () => {
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  return { ...doc, tools: [...doc.tools, ...extra] };
};
const servers = new Set();
const newServer = () => {
  const server = new Server({ name: read().name || 'listed', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: read().tools }));
  servers.add(server);
  return server;
};
const changed = () => {
  for (const server of servers) server.sendToolListChanged().catch(() => {});
};
watchFile(file, { interval: 100 }, changed);
process.on('SIGUSR1', () => {
  extra.push({ name: 'ring_bell', description: 'Ring the bell on the front door',
    inputSchema: { type: 'object', properties: { times: { type: 'integer' } } } });
  changed();
});

if (http) {
  const [mode, portFile] = [http.slice(0, http.indexOf(':')), http.slice(http.indexOf(':') + 1)];
  const { StreamableHTTPServerTransport } =
    require('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const transports = new Map();
  process.on('SIGUSR2', () => {
    for (const t of transports.values()) t.close().catch(() => {});
    transports.clear();
    servers.clear();
  });
  const web = createServer(async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let t = sid ? transports.get(sid) : undefined;
    const answer = (status) => {
      if (req.method === 'GET') appendFileSync(`${portFile}.log`, `GET ${status}\n`);
      res.writeHead(status, { 'Content-Type': 'application/json' }).end('{}');
    };
    if (req.method === 'GET' && mode === 'http-nostream') return answer(405);
    if (sid && !t) return answer(404);
    if (!t) {
      if (req.method !== 'POST') return answer(400);
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, created),
      });
      const server = newServer();
      created.onclose = () => servers.delete(server);
      await server.connect(created);
      t = created;
    }
    if (req.method === 'GET') appendFileSync(`${portFile}.log`, 'GET 200\n');
    await t.handleRequest(req, res);
  });
  web.listen(0, '127.0.0.1', () => writeFileSync(portFile, String(web.address().port)));
} else {
  const server = newServer();
  server.onclose = () => process.exit(0); // the file watch would keep the process alive
  process.stdin.on('end', () => process.exit(0));
  await server.connect(new StdioServerTransport());
}
