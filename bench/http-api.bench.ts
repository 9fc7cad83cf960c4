// Latency of the HTTP API with a trivial script endpoint, with the activity log on and off
// (the log must add no more than a few milliseconds), on the embedded database or BENCH_DATABASE_URL.
import { startBenchService } from './bench-service.js';

const N = Number(process.env.BENCH_REQUESTS ?? 500);
const { service, url, gql } = await startBenchService();

const agentId = (await gql('mutation { createAgent(input: {name: "bench"}) { id } }')).createAgent.id;
const key = (await gql(`mutation { createAgentApiKey(agentId: "${agentId}", name: "b") { key } }`)).createAgentApiKey
  .key;
await gql(
  `mutation { addHttpEndpoint(agentId: "${agentId}", input: {path: "echo", handler: {script: "return { n: input.n * 2 }"}}) { id } }`,
);

async function measure(label: string): Promise<{ label: string; p50: number; p95: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const r = await fetch(`${url}/agents/${agentId}/api/echo`, {
      method: 'POST',
      headers: { 'x-agent-access-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ n: i }),
    });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`status ${r.status}`);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const q = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))]! * 100) / 100;
  return { label, p50: q(0.5), p95: q(0.95), p99: q(0.99) };
}

await measure('warm-up');
const on = await measure('activity log on');
await gql(`mutation { setSurface(agentId: "${agentId}", surface: HTTP_API, activityLogging: false) { id } }`);
const off = await measure('activity log off');
console.log(
  `HTTP API, trivial script endpoint, ${N} sequential requests (${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'embedded database'})`,
);
console.table([on, off].map((r) => ({ run: r.label, 'p50 ms': r.p50, 'p95 ms': r.p95, 'p99 ms': r.p99 })));
console.log(`activity log cost at p50: ${Math.round((on.p50 - off.p50) * 100) / 100} ms`);
await service.close();
