// A stdio MCP server (the official TypeScript SDK) whose tool list is a JSON file: tools/list
// answers the file's {"name": ..., "tools": [...]} as it is now, and the server declares
// tools.listChanged and sends notifications/tools/list_changed when the file changes, so the
// tests can change a server's tools while it runs or between two indexings. SIGUSR1 adds a
// tool held in this process only (ring_bell), with list_changed: a client that reads the
// list again from a fresh process would not see it. Each start appends a line to the file
// $LISTED_STARTS when it is set, so a test can count the processes started.
// usage: node listed_server.mjs <tools/node dir> <tools.json>
import { createRequire } from 'node:module';
import { appendFileSync, readFileSync, watchFile } from 'node:fs';
import { join, resolve } from 'node:path';

const [nodeDir, file] = process.argv.slice(2);
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
const server = new Server({ name: read().name || 'listed', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: read().tools }));
watchFile(file, { interval: 100 }, () => {
  server.sendToolListChanged().catch(() => {});
});
process.on('SIGUSR1', () => {
  extra.push({ name: 'ring_bell', description: 'Ring the bell on the front door',
    inputSchema: { type: 'object', properties: { times: { type: 'integer' } } } });
  server.sendToolListChanged().catch(() => {});
});
server.onclose = () => process.exit(0); // the file watch would keep the process alive
process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
