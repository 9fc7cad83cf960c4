import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { TEST_SECRETS_KEY } from '../helpers/harness.js';
import { graphqlClient, startService, type Started } from '../helpers/process.js';
import { privatePostgres, type PrivatePostgres } from './private-postgres.js';
import {
  drained,
  freePort,
  onPostgres,
  reconcile,
  recordingAgent,
  sqlClient,
  until,
  WebhookSender,
} from './support.js';

// PostgreSQL stopped as a crash stops it (`pg_ctl -m immediate`) while the service is under load —
// signed webhook events and HTTP API calls whose script writes a record — kept down for a few
// seconds, then started again. The service is not restarted. While the database is away every
// answer is a 503 with Retry-After (webhooks included: no 200 for a delivery not stored) and
// /readyz says so; once it is back the service answers 200 again by itself (how soon is printed);
// and nothing it answered 200 for is missing: every accepted event ran to completion, every API call
// answered 200 left its record and its activity entry.

const ADMIN_TOKEN = 'faults-postgres-restart-admin-token'; // 35 characters
const EVENTS = Number(process.env.FAULTS_RESTART_EVENTS ?? 3000);
const OUTAGE_MS = 3000;

describe('faults: PostgreSQL restarted under load', function () {
  this.timeout(600_000);

  before(onPostgres({ serverBinaries: true }));

  it('503 with Retry-After while it is down, 200 again once it is back without a restart, nothing answered 200 lost', async () => {
    const pgServer: PrivatePostgres = await privatePostgres();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-faults-pg-'));
    const port = await freePort();
    let server: Started | undefined;
    let sql: pg.Client | undefined;
    const connect = async () => {
      if (!sql) {
        sql = await sqlClient(pgServer.url);
        sql.once('end', () => (sql = undefined));
      }
      return sql;
    };
    try {
      server = await startService({
        DATABASE_URL: pgServer.url,
        SECRETS_KEY: TEST_SECRETS_KEY,
        PORT: String(port),
        DATA_DIR: dataDir,
        ADMIN_TOKEN,
        LOG_LEVEL: 'error',
        WEBHOOK_LEASE_SECONDS: '2',
      });
      const url = server.url;
      const { agent, doc } = await recordingAgent(() => url, ADMIN_TOKEN);
      const gql = graphqlClient(() => url, ADMIN_TOKEN);
      const key = (
        await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "load") { key } }', { a: agent })
      ).createAgentApiKey.key as string;
      await gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
        a: agent,
        i: {
          path: 'write',
          handler: {
            script: `await documents.insert(${JSON.stringify(doc)}, [{ deliveryId: 'api-' + input.n, senderId: 'api', attempt: 1 }]); return { stored: input.n };`,
          },
        },
      });

      // HTTP API load: 8 callers, each call with a request id of its own.
      const api = {
        answered: new Map<string, number>(),
        ok: [] as number[],
        byStatus: new Map<number, number>(),
        missingRetryAfter: 0,
        bodies: [] as string[],
        answers: [] as { at: number; status: number }[],
      };
      let loading = true;
      let n = 0;
      const caller = async () => {
        while (loading) {
          const i = n++;
          const requestId = `fault-api-${i}`;
          try {
            const res = await fetch(`${url}/agents/${agent}/api/write`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-agent-access-key': key, 'x-request-id': requestId },
              body: JSON.stringify({ n: i }),
              signal: AbortSignal.timeout(30_000),
            });
            const text = await res.text();
            if (res.status !== 200 && res.status !== 503) api.bodies.push(`${res.status} ${text}`);
            api.answered.set(requestId, res.status);
            api.answers.push({ at: Date.now(), status: res.status });
            api.byStatus.set(res.status, (api.byStatus.get(res.status) ?? 0) + 1);
            if (res.status === 200) api.ok.push(i);
            if (res.status === 503 && !(Number(res.headers.get('retry-after')) > 0)) api.missingRetryAfter++;
            if (res.status === 503) await new Promise((r) => setTimeout(r, 100));
          } catch {
            // the service itself is never down here; a timeout is counted by its absence from `answered`
          }
        }
      };
      const callers = Array.from({ length: 8 }, caller);

      // /readyz, watched throughout.
      const ready: { at: number; status: number }[] = [];
      const watcher = (async () => {
        while (loading) {
          const r = await fetch(`${url}/readyz`).catch(() => null);
          ready.push({ at: Date.now(), status: r?.status ?? 0 });
          await r?.text();
          await new Promise((res) => setTimeout(res, 100));
        }
      })();

      const sender = new WebhookSender(() => `${url}/agents/${agent}/webhook`, { redeliverEvery: 25 });
      const sending = sender.send(0, EVENTS, 16);
      await until('a third of the events accepted', async () =>
        sender.counts.accepted >= EVENTS / 3 ? true : undefined,
      );
      const downAt = Date.now();
      pgServer.crash();
      await new Promise((r) => setTimeout(r, OUTAGE_MS)); // how long the database stays away: the fault itself, not a wait for a result
      pgServer.start();
      const backAt = Date.now();
      await sending;
      loading = false;
      await Promise.all([...callers, watcher]);

      await drained(connect);
      const r = await reconcile(await connect(), sender, doc);
      const apiRecords = new Set(
        (
          await (
            await connect()
          ).query(
            "select data->>'deliveryId' as d from document_records where document_id = $1 and data->>'senderId' = 'api'",
            [doc],
          )
        ).rows.map((x) => x.d as string),
      );
      const apiLost = api.ok.filter((i) => !apiRecords.has(`api-${i}`));
      // Activity entries are written in batches, and kept and retried while the database is away.
      // A call refused 503 before its agent could be read (the read cache is off while the
      // database is away) has no agent to be logged under: it is in the JSON request log only.
      let unlogged: string[] = [];
      let unloggedRefusals = 0;
      await until(
        'the activity entries of every answered call',
        async () => {
          const logged = new Set(
            (
              await (await connect()).query("select request_id from activity_log where request_id like 'fault-api-%'")
            ).rows.map((x) => x.request_id as string),
          );
          unlogged = [...api.answered.keys()].filter((id) => !logged.has(id) && api.answered.get(id) !== 503);
          unloggedRefusals = [...api.answered.keys()].filter(
            (id) => !logged.has(id) && api.answered.get(id) === 503,
          ).length;
          return unlogged.length === 0 ? true : undefined;
        },
        30_000,
      ).catch(() => {});

      const firstOk = (answers: { at: number; status: number }[]) =>
        answers.find((a) => a.at >= backAt && a.status === 200)?.at;
      const webhookBackMs = (firstOk(sender.answers) ?? Infinity) - backAt;
      const apiBackMs = (firstOk(api.answers) ?? Infinity) - backAt;
      const readyBackMs = (ready.find((x) => x.at >= backAt && x.status === 200)?.at ?? Infinity) - backAt;
      const webhook503 = sender.answers.filter((a) => a.status === 503).length;
      const status = (m: Map<number, number>) =>
        [...m]
          .sort(([a], [b]) => a - b)
          .map(([s, c]) => `${s}×${c}`)
          .join(' ');
      console.log(
        `      PostgreSQL restarted under load: sent ${sender.counts.sent}, accepted ${sender.counts.accepted}, run ${r.run}, lost ${r.lost.length}, duplicated ${r.duplicated.length}` +
          ` (webhook 503s ${webhook503}; HTTP API ${status(api.byStatus)}, lost ${apiLost.length}, activity entries missing ${unlogged.length}, 503s refused before the agent was known ${unloggedRefusals};` +
          ` down ${OUTAGE_MS} ms; after the start: webhooks 200 in ${webhookBackMs} ms, HTTP API 200 in ${apiBackMs} ms, /readyz 200 in ${readyBackMs} ms)`,
      );
      // FAULTS_SERVICE_LOG=<file>: the service's output and the bodies of unexpected answers, for a failure's cause.
      if (process.env.FAULTS_SERVICE_LOG)
        fs.writeFileSync(process.env.FAULTS_SERVICE_LOG, server.output() + '\n' + JSON.stringify(api.bodies));
      expect(sender.counts.unexpected, 'webhook statuses other than 200 and 503').to.deep.equal(new Map());
      expect(
        [...api.byStatus.keys()].filter((s) => s !== 200 && s !== 503),
        'HTTP API statuses other than 200 and 503',
      ).to.deep.equal([]);
      expect(api.missingRetryAfter, '503 without Retry-After').to.equal(0);
      expect(webhook503 + (api.byStatus.get(503) ?? 0), 'the outage was seen').to.be.above(0);
      expect(
        ready.some((x) => x.at > downAt && x.at < backAt && x.status === 503),
        '/readyz reported the outage',
      ).to.equal(true);
      expect(sender.counts.accepted).to.equal(EVENTS);
      expect(r.lost).to.deep.equal([]);
      expect(r.duplicated).to.deep.equal([]);
      expect(r.unfinished).to.equal(0);
      expect(apiLost).to.deep.equal([]);
      expect(unlogged).to.deep.equal([]);
      // Recovered without a restart: each answers 200 again after the start. How soon is measured and
      // printed above, not bounded here (a busy machine is slower, not wrong).
      for (const ms of [webhookBackMs, apiBackMs, readyBackMs])
        expect(Number.isFinite(ms), 'a 200 again after the database start').to.equal(true);
    } finally {
      if (server && server.child.exitCode === null) await server.stop();
      await sql?.end().catch(() => {});
      pgServer.remove();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
