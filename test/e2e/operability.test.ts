import { expect } from 'chai';
import { once } from 'node:events';
import type http from 'node:http';
import net from 'node:net';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/infra/config.js';
import { createLogger } from '../../src/infra/logger.js';
import { buildService, type Service } from '../../src/server.js';
import { createAgent, gqlOk, h, newWorkspace, TEST_SECRETS_KEY } from '../helpers/harness.js';

// Operability (docs/operations.md): GET /metrics, the request id in the answer, the log line and the
// activity entry, and a graceful shutdown that drains before it stops.

/** An agent with a key and one script endpoint (default: `sum`, adding input.a and input.b), and a daily credit limit if given. */
async function scriptAgent(
  token: string,
  opts: { path?: string; script?: string; dailyCreditLimit?: number } = {},
): Promise<{ id: string; key: string }> {
  const id = await createAgent(token);
  const key = (await gqlOk(token, 'mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: id }))
    .createAgentApiKey.key as string;
  const endpoint = {
    path: opts.path ?? 'sum',
    handler: { script: opts.script ?? 'return { sum: input.a + input.b };' },
  };
  await gqlOk(token, 'mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
    a: id,
    i: endpoint,
  });
  if (opts.dailyCreditLimit !== undefined) {
    await gqlOk(token, 'mutation($a: ID!, $d: Float) { setAgentLimits(agentId: $a, dailyCreditLimit: $d) { id } }', {
      a: id,
      d: opts.dailyCreditLimit,
    });
  }
  return { id, key };
}

function sum(url: string, agent: { id: string; key: string }, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/agents/${agent.id}/api/sum`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-agent-access-key': agent.key, ...headers },
    body: JSON.stringify({ a: 2, b: 40 }),
  });
}

/** The value of one sample in Prometheus text, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A second service on the harness's database, configured by `env`, logging into `lines`. */
async function anotherService(
  env: Record<string, string>,
  lines: Record<string, unknown>[] = [],
  webhookWorkers = 0,
): Promise<{ service: Service; url: string; server: http.Server }> {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig({
    DATABASE_URL: h().config.databaseUrl,
    DATA_DIR: 'memory',
    SECRETS_KEY: TEST_SECRETS_KEY,
    LOG_LEVEL: 'info',
    PORT: '0',
    ...env,
  });
  const service = await buildService(config, {
    db: h().db,
    skipMigrations: true,
    logger: createLogger('info', sink),
    housekeepingMs: 0,
    webhookWorker: { concurrency: webhookWorkers },
  });
  const { url, server } = await service.listen(0, '127.0.0.1');
  return { service, url, server };
}

describe('operability: metrics, request ids, graceful shutdown', function () {
  this.timeout(60_000);

  it('GET /metrics: requests per surface and status, runs per handler and outcome, 429s per reason, the queue, the pool and the process', async () => {
    const ws = await newWorkspace();
    const free = await scriptAgent(ws.adminToken);
    const spent = await scriptAgent(ws.adminToken, { dailyCreditLimit: 0 });
    const before = await (await fetch(`${h().url}/metrics`)).text();
    expect((await sum(h().url, free)).status).to.equal(200);
    expect((await sum(h().url, free)).status).to.equal(200);
    expect((await sum(h().url, spent)).status).to.equal(429);

    const res = await fetch(`${h().url}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const grew = (series: string) => (sample(text, series) ?? 0) - (sample(before, series) ?? 0);
    expect(grew('aes_http_requests_total{surface="HTTP_API",status="200"}')).to.equal(2);
    expect(grew('aes_http_requests_total{surface="HTTP_API",status="429"}')).to.equal(1);
    expect(grew('aes_http_request_duration_seconds_count{surface="HTTP_API",status="200"}')).to.equal(2);
    expect(grew('aes_runs_total{handler="script",outcome="ok"}')).to.equal(2);
    expect(grew('aes_refusals_total{reason="daily_credit_limit"}')).to.equal(1);
    for (const series of [
      'aes_webhook_queue_depth',
      'aes_webhook_oldest_pending_seconds',
      'aes_webhook_deliveries_failed',
      'aes_concurrency_leases_held',
      'aes_activity_log_pending_entries',
      'aes_activity_log_write_lag_seconds',
      'aes_db_pool_connections{state="in_use"}',
      'aes_db_pool_max',
      'aes_db_pool_waiting',
      'aes_process_resident_memory_bytes',
      'aes_nodejs_eventloop_lag_seconds',
    ]) {
      expect(sample(text, series), series).to.be.a('number').and.not.NaN;
    }
    // No label names an agent, a key or a workspace.
    expect(text).to.not.include(free.id);
    expect(text).to.not.include(ws.workspaceId);
  });

  it('with METRICS_PORT, /metrics is served there and not on the main port', async () => {
    const lines: Record<string, unknown>[] = [];
    const { service, url } = await anotherService({ METRICS_PORT: '0' }, lines);
    try {
      expect((await fetch(`${url}/metrics`)).status).to.equal(404);
      const port = lines.find((l) => l.msg === 'metrics listening')?.port as number;
      expect(port).to.be.a('number');
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).to.equal(200);
      expect(sample(await res.text(), 'aes_db_pool_waiting')).to.be.a('number');
      expect((await fetch(`http://127.0.0.1:${port}/graphql`)).status).to.equal(404);
    } finally {
      await service.close();
    }
  });

  it('X-Request-Id: a sane one sent is kept, anything else replaced; the answer, the log line and the activity entry carry it', async () => {
    const ws = await newWorkspace();
    const agent = await scriptAgent(ws.adminToken);
    const lines: Record<string, unknown>[] = [];
    const { service, url } = await anotherService({}, lines);
    try {
      const kept = await sum(url, agent, { 'x-request-id': 'trace-4bf92f3577b34da6' });
      expect(kept.status).to.equal(200);
      expect(kept.headers.get('x-request-id')).to.equal('trace-4bf92f3577b34da6');
      const replaced = await sum(url, agent, { 'x-request-id': 'has spaces and "quotes"' });
      const fresh = replaced.headers.get('x-request-id')!;
      expect(fresh).to.match(/^[0-9a-f-]{36}$/);
      await service.services.activityLog.flush();

      const log = lines.filter((l) => l.msg === 'request');
      const ofKept = log.find((l) => l.requestId === 'trace-4bf92f3577b34da6');
      expect(ofKept).to.include({
        method: 'POST',
        path: `/agents/${agent.id}/api/sum`,
        status: 200,
        surface: 'HTTP_API',
      });
      expect(log.some((l) => l.requestId === fresh)).to.equal(true);
      // No key, token or secret in any line.
      expect(JSON.stringify(lines)).to.not.include(agent.key);

      const entries = (
        await gqlOk(
          ws.adminToken,
          'query($a: ID!) { agent(id: $a) { activity(first: 10) { nodes { requestId status } } } }',
          { a: agent.id },
        )
      ).agent.activity.nodes as { requestId: string }[];
      expect(entries.map((e) => e.requestId).sort()).to.deep.equal(['trace-4bf92f3577b34da6', fresh].sort());
    } finally {
      await service.close();
    }
  });

  it('a caller that goes away mid-request is logged at info, not as an error', async () => {
    const ws = await newWorkspace();
    const { id, key } = await scriptAgent(ws.adminToken, {
      path: 'slow',
      script: 'let n = 0; for (let i = 0; i < 3e7; i++) n += i; return n;',
    });
    const lines: Record<string, unknown>[] = [];
    const { service, url, server } = await anotherService({}, lines);
    try {
      const arrived = once(server, 'request');
      const abort = new AbortController();
      const call = fetch(`${url}/agents/${id}/api/slow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-agent-access-key': key },
        body: '{}',
        signal: abort.signal,
      }).catch(() => null);
      await arrived;
      abort.abort();
      await call;
      for (
        let i = 0;
        i < 50 && !lines.some((l) => typeof l.msg === 'string' && (l.msg as string).includes('went away'));
        i++
      )
        await new Promise((r) => setTimeout(r, 100));
      const gone = lines.find((l) => typeof l.msg === 'string' && (l.msg as string).includes('went away'));
      expect(gone, JSON.stringify(lines)).to.include({ level: 30, path: `/agents/${id}/api/slow` });
      expect(
        lines.filter((l) => (l.level as number) >= 50),
        'error lines',
      ).to.deep.equal([]);
    } finally {
      await service.close();
    }
  });

  it('a caller that closes the connection before its body arrived is not logged as an error', async () => {
    const ws = await newWorkspace();
    const { id, key } = await scriptAgent(ws.adminToken, { path: 'echo', script: 'return input.body;' });
    const lines: Record<string, unknown>[] = [];
    const { service, url, server } = await anotherService({}, lines);
    try {
      const arrived = once(server, 'request');
      const { port } = new URL(url);
      const socket = net.connect(Number(port), '127.0.0.1');
      // 100 bytes announced, 10 sent: the service is still reading the body when the caller leaves.
      socket.write(
        `POST /agents/${id}/api/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Agent-Access-Key: ${key}\r\nContent-Length: 100\r\n\r\n{"a": "12`,
      );
      await arrived;
      await new Promise((r) => setTimeout(r, 200));
      socket.destroy();
      for (
        let i = 0;
        i < 50 && !lines.some((l) => typeof l.msg === 'string' && (l.msg as string).includes('went away'));
        i++
      )
        await new Promise((r) => setTimeout(r, 100));
      expect(
        lines.find((l) => typeof l.msg === 'string' && (l.msg as string).includes('went away')),
        JSON.stringify(lines),
      ).to.include({ level: 30 });
      expect(
        lines.filter((l) => (l.level as number) >= 50),
        'error lines',
      ).to.deep.equal([]);
    } finally {
      await service.close();
    }
  });

  it('shutdown: /readyz answers 503 at once, a request in flight still gets its answer, then new connections are refused', async () => {
    const ws = await newWorkspace();
    const { id, key } = await scriptAgent(ws.adminToken, {
      path: 'slow',
      // Long enough to be in flight when the shutdown begins, short enough for a wall-clock limit on a loaded machine.
      script: 'let n = 0; for (let i = 0; i < 5e6; i++) n += i; return { n };',
    });
    const { service, url, server } = await anotherService({ SHUTDOWN_TIMEOUT_MS: '20000' });
    expect((await fetch(`${url}/readyz`)).status).to.equal(200);
    const arrived = once(server, 'request');
    // One connection carries the slow request and, once the shutdown began, a /readyz behind it.
    const { port } = new URL(url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    const body = '{}';
    socket.write(
      `POST /agents/${id}/api/slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Agent-Access-Key: ${key}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await arrived;
    const closing = service.close();
    socket.write('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n');
    // A new connection is not accepted any more.
    expect(
      await fetch(`${url}/healthz`).then(
        (r) => r.status,
        () => 'refused',
      ),
    ).to.equal('refused');
    for (let i = 0; i < 200 && (received.match(/HTTP\/1\.1 /g) ?? []).length < 2; i++)
      await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    const [slow, ready] = received.split(/(?=HTTP\/1\.1 )/);
    expect(slow).to.match(/^HTTP\/1\.1 200 /);
    expect(slow).to.match(/"n":\d+/);
    expect(ready).to.match(/^HTTP\/1\.1 503 /);
    expect(ready).to.include('Shutting down');
    await closing;
    const after = await fetch(`${url}/healthz`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(after).to.equal('refused');
  });

  it('shutdown: a webhook delivery still running at the deadline is given back to the queue, due at once and without a failure counted', async () => {
    const ws = await newWorkspace();
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, 'mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
      a: id,
      // The first attempt runs until it is stopped; a second one answers at once.
      i: {
        integration: 'slow',
        handler: {
          script: 'if (request.delivery.attempt === 1) for (;;) {} return { attempt: request.delivery.attempt };',
        },
      },
    });
    // This instance runs the delivery it accepts (it claims at once); its shutdown deadline is short.
    const { service, url } = await anotherService({ SHUTDOWN_TIMEOUT_MS: '200', WEBHOOK_LEASE_SECONDS: '60' }, [], 1);
    const accepted = await fetch(`${url}/agents/${id}/webhook/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"event":"x"}',
    });
    expect(accepted.status).to.equal(200);
    const row = () =>
      h().db('webhook_deliveries').where({ agent_id: id }).first() as Promise<{
        status: string;
        attempts: number;
        failures: number;
        locked_until: Date | null;
      }>;
    for (let i = 0; i < 500 && (await row()).status !== 'RUNNING'; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await row()).status).to.equal('RUNNING');
    await service.close();
    // Given back: another instance (here the harness's worker) runs it long before the 60 s lease
    // would have ended, and the interrupted attempt is not counted as a failure.
    let last = await row();
    for (let i = 0; i < 300 && last.status !== 'DONE'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      last = await row();
    }
    expect(last).to.include({ status: 'DONE', attempts: 2, failures: 0 });
  });
});
