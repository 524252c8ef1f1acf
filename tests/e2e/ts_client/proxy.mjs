// A line-oriented bridge between pytest and the official TypeScript MCP client.
//
//   node proxy.mjs '{"command": "...", "args": [...], "env": {...}, "cwd": "...", "timeoutMs": 30000}'
//   (or the same JSON in the environment variable MCP_TS_PROXY_CONFIG)
//   node proxy.mjs '{"url": "http://127.0.0.1:8766/mcp", "headers": {"Authorization": "Bearer ..."}, "timeoutMs": 30000}'
//   connects to a running `manage.py mcp --http` with the SDK's StreamableHTTPClientTransport instead
//
// Starts the server with the SDK's StdioClientTransport (or reaches it over streamable HTTP), connects a Client (the initialize handshake)
// and calls listTools once, so that callTool validates structuredContent against the output schemas
// the client cached, as a real TypeScript agent would. It then answers a first line for the connection:
//   {"id": 0, "ok": true, "result": {"serverVersion": ..., "capabilities": ..., "tools": [...]}}
// and then reads one JSON request per line on stdin,
//   {"id": n, "method": "listTools"|"callTool"|"listResources"|"listResourceTemplates"|"readResource"|"listPrompts"|"getPrompt"
//    |"subscribeResource"|"unsubscribeResource"|"resourceUpdates", "params": {...}}
// ("resourceUpdates" answers the URIs of the notifications/resources/updated received since it was last asked)
// and writes one JSON line per request on stdout, in order:
//   {"id": n, "ok": true, "result": ...}  or  {"id": n, "ok": false, "error": {"code", "message", "data"?}}
// where code is the McpError code (null for any other exception). Stdin EOF closes the client and
// the server. The server's stderr goes to this program's stderr.

import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const config = JSON.parse(process.argv[2] ?? process.env.MCP_TS_PROXY_CONFIG ?? '{}');
const options = { timeout: config.timeoutMs ?? 30000 }; // per request; the SDK's default is 60 s

const transport = config.url
  ? new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers ?? {} } })
  : new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      env: config.env, // merged over the SDK's small default environment (PATH, HOME...)
      cwd: config.cwd,
      stderr: 'inherit',
    });
const client = new Client({ name: 'workrail-ts-e2e', version: '0.0.0' });
const updates = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
  updates.push(notification.params.uri);
});

// Only the client's public methods: each runs the SDK's own result validation.
const methods = {
  listTools: (params) => client.listTools(params, options),
  callTool: (params) => client.callTool(params, undefined, options),
  listResources: (params) => client.listResources(params, options),
  listResourceTemplates: (params) => client.listResourceTemplates(params, options),
  readResource: (params) => client.readResource(params, options),
  listPrompts: (params) => client.listPrompts(params, options),
  getPrompt: (params) => client.getPrompt(params, options),
  subscribeResource: (params) => client.subscribeResource(params, options),
  unsubscribeResource: (params) => client.unsubscribeResource(params, options),
  resourceUpdates: async () => updates.splice(0),
};

function write(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function failure(id, error) {
  const detail = { code: error instanceof McpError ? error.code : null, message: String(error?.message ?? error) };
  if (error instanceof McpError && error.data !== undefined) detail.data = error.data;
  return { id, ok: false, error: detail };
}

async function answer(id, run) {
  try {
    write({ id, ok: true, result: await run() });
  } catch (error) {
    write(failure(id, error));
  }
}

await answer(0, async () => {
  await client.connect(transport, options);
  const { tools } = await client.listTools(undefined, options);
  return { serverVersion: client.getServerVersion(), capabilities: client.getServerCapabilities(), tools };
});

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    write(failure(null, error));
    continue;
  }
  const method = methods[request.method];
  await answer(request.id ?? null, () =>
    method ? method(request.params ?? {}) : Promise.reject(new Error(`unknown method ${request.method}`)),
  );
}

await client.close(); // ends the server's stdin, then waits for it to exit (the SDK escalates if it does not)
