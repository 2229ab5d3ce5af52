// A stdio MCP server (the official TypeScript SDK) whose tool list is a JSON file: tools/list
// answers the file's {"name": ..., "tools": [...]} as it is now, and the server declares
// tools.listChanged and sends notifications/tools/list_changed when the file changes, so the
// tests can change a server's tools while it runs or between two indexings.
// usage: node listed_server.mjs <tools/node dir> <tools.json>
import { createRequire } from 'node:module';
import { readFileSync, watchFile } from 'node:fs';
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

const read = () => JSON.parse(readFileSync(file, 'utf8'));
const server = new Server({ name: read().name || 'listed', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: read().tools }));
watchFile(file, { interval: 100 }, () => {
  server.sendToolListChanged().catch(() => {});
});
await server.connect(new StdioServerTransport());
