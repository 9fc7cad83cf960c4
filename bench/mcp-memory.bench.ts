// Memory of the MCP server surface: 10,000 sequential tool calls (a trivial script tool) must leave
// the process's heap within 20 MB of where it stood after a warm-up. The surface is stateless — a
// server instance per request, nothing kept between requests — and this is where a leak would show.
// Half the calls speak 2025-11-25 (JSON-RPC as the v1 SDK sends it), half 2026-07-28 (the `_meta`
// envelope of the v2 client). Embedded database, or BENCH_DATABASE_URL.
import { startBenchService } from './bench-service.js';

const N = Number(process.env.BENCH_MCP_CALLS ?? 10_000);
const WARM_UP = 500;
const TARGET_MB = 20;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc (npm run bench does)');

const { service, url, gql } = await startBenchService();

const agentId = (await gql('mutation { createAgent(input: {name: "bench", description: "MCP memory bench"}) { id } }'))
  .createAgent.id;
const key = (await gql(`mutation { createAgentApiKey(agentId: "${agentId}", name: "b") { key } }`)).createAgentApiKey
  .key;
await gql(
  `mutation { addMcpTool(agentId: "${agentId}", input: {name: "double", description: "Doubles n", handler: {script: "return { n: input.n * 2 }"}, inputSchema: {type: "object", properties: {n: {type: "number"}}, required: ["n"]}}) { id } }`,
);
const mcpUrl = `${url}/agents/${agentId}/mcp`;

function message(i: number): { body: unknown; headers: Record<string, string> } {
  const params = { name: 'double', arguments: { n: i } };
  if (i % 2 === 0)
    return {
      body: { jsonrpc: '2.0', id: i, method: 'tools/call', params },
      headers: { 'mcp-protocol-version': '2025-11-25' },
    };
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return {
    body: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { ...params, _meta } },
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'double' },
  };
}

async function callOnce(i: number): Promise<void> {
  const m = message(i);
  const r = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'x-agent-access-key': key,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...m.headers,
    },
    body: JSON.stringify(m.body),
  });
  const text = await r.text();
  if (r.status !== 200 || !text.includes(`\\"n\\":${i * 2}`))
    throw new Error(`call ${i}: ${r.status} ${text.slice(0, 300)}`);
}

const heapMb = async () => {
  await service.services.activityLog.flush();
  gc();
  await new Promise((r) => setTimeout(r, 50));
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

for (let i = 0; i < WARM_UP; i++) await callOnce(i);
const start = await heapMb();
const t0 = performance.now();
for (let i = 0; i < N; i++) await callOnce(i);
const seconds = (performance.now() - t0) / 1000;
const end = await heapMb();
const growth = end - start;
console.log(
  `MCP server, ${N} sequential tool calls (half 2025-11-25, half 2026-07-28), ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'embedded database'}`,
);
console.table([
  {
    'heap after warm-up MB': start.toFixed(1),
    'heap after calls MB': end.toFixed(1),
    'growth MB': growth.toFixed(1),
    'calls/s': Math.round(N / seconds),
  },
]);
await service.close();
if (growth > TARGET_MB) {
  console.error(`heap grew ${growth.toFixed(1)} MB, more than the ${TARGET_MB} MB target`);
  process.exit(1);
}
