// Dumps the tools of every MCP server of an `mcpServers` config (the JSON shape Claude
// Desktop, Cursor and VS Code use), each started over stdio with the official TypeScript SDK
// client: initialize, then `tools/list` page by page. What the MCP dev set (bench/queries/
// mcp_tasks.json) is written against, and what the BM25 baseline (bench/mcp_bm25.py) indexes.
//
//   node bench/mcp_tools.mjs [--config FILE] [--out FILE] [--resolved FILE] [--timeout-ms N]
//
// --config   default bench/queries/mcp_servers.json. A relative `command` or argument that
//            names an existing file or directory of the repository is resolved against the
//            repository (the config's paths are relative to it); everything else is passed as is.
// --resolved also writes the config with those paths made absolute (what bench_retrieval.sh
//            hands to `apidex index --mcp-config`, so apidex and this dump start the same thing).
// --out      default stdout. The dump: {"servers": {NAME: {"tools": [TOOL...]}}, "errors":
//            {NAME: "message"}}, each TOOL as the server sent it (name, title, description,
//            inputSchema, annotations ...), servers in config order.
// The SDK comes from tools/node/node_modules (cd tools/node && npm ci). Exit status: 0 every
// server listed its tools; 1 some failed (their error is in "errors" and on stderr, the rest
// is dumped); 2 usage or a config that cannot be read.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const sdk = path.join(repo, 'tools/node/node_modules/@modelcontextprotocol/sdk/dist/esm/client');

function usage(msg) {
  if (msg) process.stderr.write(`mcp_tools.mjs: ${msg}\n`);
  process.stderr.write('usage: node bench/mcp_tools.mjs [--config FILE] [--out FILE] [--resolved FILE] [--timeout-ms N]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const a = { config: path.join(repo, 'bench/queries/mcp_servers.json'), out: null, resolved: null, timeout: 30000 };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    switch (argv[i]) {
      case '--config': if (v === undefined) usage('--config needs a file'); a.config = v; i++; break;
      case '--out': if (v === undefined) usage('--out needs a file'); a.out = v; i++; break;
      case '--resolved': if (v === undefined) usage('--resolved needs a file'); a.resolved = v; i++; break;
      case '--timeout-ms':
        if (!/^[1-9][0-9]*$/.test(v ?? '')) usage('--timeout-ms needs a positive integer');
        a.timeout = Number(v); i++; break;
      case '-h': case '--help': usage();
      default: usage(`unknown argument '${argv[i]}'`);
    }
  }
  return a;
}

// A relative path that exists in the repository is made absolute; anything else stays.
function resolveArg(s) {
  if (typeof s !== 'string' || s === '' || path.isAbsolute(s) || s.startsWith('-')) return s;
  const p = path.join(repo, s);
  return fs.existsSync(p) ? p : s;
}

// A config entry with its command and arguments resolved (resolveArg); other keys kept.
function resolveEntry(entry) {
  if (!entry || typeof entry !== 'object' || typeof entry.command !== 'string') return entry;
  return { ...entry, command: resolveArg(entry.command), args: (entry.args ?? []).map(resolveArg) };
}

async function listTools(Client, Transport, name, entry, timeout) {
  if (!entry || typeof entry.command !== 'string') throw new Error('no "command" string');
  const transport = new Transport({
    command: entry.command,
    args: entry.args ?? [],
    env: { ...process.env, ...(entry.env ?? {}) },
    cwd: repo,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr = (stderr + d).slice(-2000); });
  const client = new Client({ name: 'apidex-bench-mcp-tools', version: '1' });
  const timer = setTimeout(() => transport.close(), timeout);
  try {
    await client.connect(transport, { timeout });
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } catch (e) {
    const tail = stderr.trim().split('\n').slice(-3).join(' | ');
    throw new Error(`${e.message}${tail ? ` (server stderr: ${tail})` : ''}`);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  let cfg;
  try {
    cfg = JSON.parse(fs.readFileSync(a.config, 'utf8'));
  } catch (e) {
    usage(`cannot read ${a.config}: ${e.message}`);
  }
  const servers = cfg?.mcpServers;
  if (!servers || typeof servers !== 'object' || Array.isArray(servers))
    usage(`${a.config}: expected an object {"mcpServers": {NAME: {command, args, env}}}`);
  const resolved = Object.fromEntries(Object.entries(servers).map(([n, e]) => [n, resolveEntry(e)]));
  if (a.resolved) fs.writeFileSync(a.resolved, JSON.stringify({ mcpServers: resolved }, null, 1) + '\n');
  const { Client } = await import(pathToFileURL(path.join(sdk, 'index.js')).href);
  const { StdioClientTransport } = await import(pathToFileURL(path.join(sdk, 'stdio.js')).href);
  const out = { servers: {}, errors: {} };
  const names = Object.keys(servers);
  // one server at a time: a dozen node processes at once would crowd a small machine
  for (const name of names) {
    try {
      out.servers[name] = { tools: await listTools(Client, StdioClientTransport, name, resolved[name], a.timeout) };
      process.stderr.write(`mcp_tools.mjs: ${name}: ${out.servers[name].tools.length} tools\n`);
    } catch (e) {
      out.errors[name] = e.message;
      process.stderr.write(`mcp_tools.mjs: ${name}: ${e.message}\n`);
    }
  }
  const text = JSON.stringify(out, null, 1) + '\n';
  if (a.out) fs.writeFileSync(a.out, text);
  else process.stdout.write(text);
  process.exit(Object.keys(out.errors).length ? 1 : 0);
}

main();
