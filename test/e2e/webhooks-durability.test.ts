import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { databaseEnv, graphqlClient, startService, type Started } from '../helpers/process.js';
import { startSurfaceService, type InProcessService } from '../helpers/surface-service.js';
import { until } from '../helpers/until.js';
import { dataDirWithDatabase } from '../helpers/embedded-template.js';

// What the webhook queue promises when things break, on PostgreSQL (an embedded database belongs
// to one process, and these are about processes and connections): a server killed with SIGKILL
// while its queue is busy loses no accepted delivery and runs no finished one again; two instances
// draining one queue run each delivery once; a database that goes away makes the receiver answer
// 503 (never 200 for something not stored) until it is back, without a restart.

const ADMIN_TOKEN = 'webhook-durability-admin-token-01'; // 33 characters
const HANDLER =
  'await documents.insert(DOC, [{ deliveryId: request.delivery.id, attempt: request.delivery.attempt }]); return { ok: true };';

/** A schema-scoped SQL client on the test database (the URL databaseEnv hands the service). */
async function sqlClient(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
}

/** Sets up an agent whose webhook handler records each run of each delivery in a database document. */
async function recordingAgent(gql: ReturnType<typeof graphqlClient>): Promise<{ agent: string; doc: string }> {
  const agent = (
    await gql('mutation { createAgent(input: { name: "Durable", description: "Records every run" }) { id } }')
  ).createAgent.id;
  await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, maxConcurrentRequests: 50) { id } }', { a: agent });
  const doc = (
    await gql('mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: {
        name: 'runs',
        kind: 'DATABASE',
        fields: [
          { name: 'deliveryId', type: 'STRING', required: true },
          { name: 'attempt', type: 'NUMBER', required: true },
        ],
      },
    })
  ).createDocument.id;
  await gql('mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
    a: agent,
    i: { integration: 'events', handler: { script: `const DOC = ${JSON.stringify(doc)}; ${HANDLER}` } },
  });
  return { agent, doc };
}

async function post(url: string, agent: string, i: number): Promise<Response> {
  return fetch(`${url}/agents/${agent}/webhook/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-delivery': `delivery-${i}` },
    body: JSON.stringify({ i }),
  });
}

describe('e2e: webhook queue durability (PostgreSQL)', function () {
  this.timeout(600_000);

  before(function () {
    if (!process.env.TEST_DATABASE_URL) this.skip();
  });

  it('kill -9 while the queue is busy: every accepted delivery runs to completion after a restart, none finished before the kill runs again, a redelivery runs once', async () => {
    const database = await databaseEnv('webhook_crash');
    const dataDir = await dataDirWithDatabase('aes-wh-crash-');
    const env = {
      ...database.env,
      PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      WEBHOOK_LEASE_SECONDS: '2',
      WEBHOOK_WORKERS: '4',
    };
    const sql = await sqlClient(database.env.DATABASE_URL!);
    let server: Started | undefined;
    try {
      server = await startService(env);
      const gql = graphqlClient(() => server!.url, ADMIN_TOKEN);
      const { agent, doc } = await recordingAgent(gql);
      const N = 1000;
      const ids = new Map<number, string>();
      const sentAt = Date.now();
      for (let start = 0; start < N; start += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, (_, k) => post(server!.url, agent, start + k)));
        for (const [k, r] of batch.entries()) {
          expect(r.status).to.equal(200);
          ids.set(start + k, ((await r.json()) as { deliveryId: string }).deliveryId);
        }
      }
      const acceptMs = Date.now() - sentAt;
      // The same sender id again: the first delivery's id, nothing new stored.
      const again = await post(server.url, agent, 0);
      expect(((await again.json()) as { deliveryId: string }).deliveryId).to.equal(ids.get(0));

      const count = async (status: string) =>
        Number((await sql.query('select count(*) as n from webhook_deliveries where status = $1', [status])).rows[0].n);
      await until('a busy queue', async () => ((await count('DONE')) >= 150 ? true : undefined));
      server.child.kill('SIGKILL');
      await new Promise((r) => server!.child.once('exit', r));
      const doneBefore = new Map<string, number>(
        (await sql.query("select id, attempts from webhook_deliveries where status = 'DONE'")).rows.map((r) => [
          r.id as string,
          Number(r.attempts),
        ]),
      );
      const runningAtKill = await count('RUNNING');
      expect(doneBefore.size).to.be.below(N);

      const restartedAt = Date.now();
      server = await startService(env);
      await until('every delivery done', async () => ((await count('DONE')) === N ? true : undefined));
      const drainMs = Date.now() - restartedAt;

      const rows = (await sql.query('select id, status, attempts from webhook_deliveries')).rows;
      expect(rows).to.have.length(N);
      const runs = new Map<string, number>(
        (
          await sql.query(
            "select data->>'deliveryId' as id, count(*) as n from document_records where document_id = $1 group by 1",
            [doc],
          )
        ).rows.map((r) => [r.id as string, Number(r.n)]),
      );
      for (const id of ids.values()) expect(runs.get(id) ?? 0, `runs of ${id}`).to.be.at.least(1);
      for (const [id, attempts] of doneBefore) {
        expect(runs.get(id), `a delivery done before the kill runs once: ${id}`).to.equal(1);
        expect(rows.find((r) => r.id === id)!.attempts).to.equal(attempts);
      }
      const again2 = [...runs.values()].filter((n) => n > 1).length;
      console.log(
        `      ${N} deliveries accepted in ${acceptMs} ms; ${doneBefore.size} done and ${runningAtKill} running at the kill; the rest drained ${drainMs} ms after the restart; ${again2} ran twice (cut off by the kill)`,
      );
    } finally {
      if (server?.child.exitCode === null) server.child.kill('SIGKILL');
      await sql.end();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('two instances on one PostgreSQL drain one queue: each delivery is processed once, by one of them', async () => {
    const database = await databaseEnv('webhook_two');
    const dirs = [
      fs.mkdtempSync(path.join(os.tmpdir(), 'aes-wh2-a-')),
      fs.mkdtempSync(path.join(os.tmpdir(), 'aes-wh2-b-')),
    ];
    const instances: InProcessService[] = [];
    const sql = await sqlClient(database.env.DATABASE_URL!);
    try {
      for (const dataDir of dirs) {
        instances.push(
          await startSurfaceService({
            dataDir,
            adminToken: ADMIN_TOKEN,
            modelUrl: 'http://127.0.0.1:9/v1',
            platformOrigin: 'https://app.example.test',
            database: database.env,
          }),
        );
      }
      const processed = [0, 0];
      instances.forEach((inst, k) => {
        const task = inst.service.services.webhookDelivery;
        const run = task.run.bind(task);
        task.run = async (d) => {
          processed[k]!++;
          return run(d);
        };
      });
      const { agent, doc } = await recordingAgent(graphqlClient(() => instances[0]!.url, ADMIN_TOKEN));
      const N = 300;
      const replies = await Promise.all(Array.from({ length: N }, (_, i) => post(instances[i % 2]!.url, agent, i)));
      for (const r of replies) expect(r.status).to.equal(200);
      await until('every delivery done', async () => {
        const n = Number(
          (await sql.query("select count(*) as n from webhook_deliveries where status = 'DONE'")).rows[0].n,
        );
        return n === N ? true : undefined;
      });
      const attempts = (await sql.query('select attempts from webhook_deliveries')).rows.map((r) => Number(r.attempts));
      expect(new Set(attempts)).to.deep.equal(new Set([1]));
      const runs = (
        await sql.query(
          "select data->>'deliveryId' as id, count(*) as n from document_records where document_id = $1 group by 1",
          [doc],
        )
      ).rows;
      expect(runs).to.have.length(N);
      for (const r of runs) expect(Number(r.n)).to.equal(1);
      expect(processed[0]! + processed[1]!).to.equal(N);
      expect(processed[0], 'instance A took part').to.be.above(0);
      expect(processed[1], 'instance B took part').to.be.above(0);
      console.log(`      ${N} deliveries: instance A ran ${processed[0]}, instance B ran ${processed[1]}`);
    } finally {
      for (const i of instances) await i.stop();
      await sql.end();
      await database.drop();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    }
  });

  it('answers 503 with Retry-After, never 200, while the database is unreachable, and recovers by itself when it is back', async () => {
    const database = await databaseEnv('webhook_outage');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-wh-outage-'));
    const target = new URL(process.env.TEST_DATABASE_URL!);
    const proxy = await startProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(database.env.DATABASE_URL!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    let svc: InProcessService | undefined;
    const sql = await sqlClient(database.env.DATABASE_URL!);
    try {
      svc = await startSurfaceService({
        dataDir,
        adminToken: ADMIN_TOKEN,
        modelUrl: 'http://127.0.0.1:9/v1',
        platformOrigin: 'https://app.example.test',
        database: { ...database.env, DATABASE_URL: viaProxy.toString() },
      });
      const { agent } = await recordingAgent(graphqlClient(() => svc!.url, ADMIN_TOKEN));
      expect((await post(svc.url, agent, 1)).status).to.equal(200);

      await proxy.cut();
      const during = await post(svc.url, agent, 2);
      expect(during.status).to.equal(503);
      expect(Number(during.headers.get('retry-after'))).to.be.above(0);
      expect(((await during.json()) as { error: string }).error).to.match(/stored/);
      expect(
        (await sql.query("select count(*) as n from webhook_deliveries where sender_delivery_id = 'delivery-2'"))
          .rows[0].n,
      ).to.satisfy((n: unknown) => Number(n) === 0);

      await proxy.restore();
      const after = await until(
        'the receiver to recover',
        async () => {
          const r = await post(svc!.url, agent, 3);
          return r.status === 200 ? r : undefined;
        },
        60_000,
      );
      expect(after.status).to.equal(200);
      await until(
        'the queue to recover',
        async () => {
          const n = Number(
            (await sql.query("select count(*) as n from webhook_deliveries where status = 'DONE'")).rows[0].n,
          );
          return n === 2 ? true : undefined;
        },
        120_000,
      );
    } finally {
      await svc?.stop();
      await proxy.close();
      await sql.end();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** A TCP proxy to the database that can be cut (connections dropped, new ones refused) and restored on the same port. */
async function startProxy(
  host: string,
  port: number,
): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const make = () =>
    net.createServer((client) => {
      const upstream = net.connect(port, host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
  let server = make();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const own = (server.address() as net.AddressInfo).port;
  const shut = async () => {
    const closed = new Promise<void>((r) => server.close(() => r()));
    for (const s of sockets) s.destroy();
    await closed;
  };
  return {
    port: own,
    cut: shut,
    async restore() {
      server = make();
      await new Promise<void>((r) => server.listen(own, '127.0.0.1', r));
    },
    async close() {
      if (server.listening) await shut();
    },
  };
}
