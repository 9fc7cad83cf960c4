import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { databaseEnv, graphqlClient, startService, type Started } from '../helpers/process.js';
import { dataDirWithDatabase } from '../helpers/embedded-template.js';
import { inviteNewPerson } from '../helpers/invitations.js';

// Listing webhook deliveries reads no body (docs/security.md, "Webhook deliveries: listing reads no
// body"). The service is started as a user starts it, with the production heap bound, on the
// embedded database or on PostgreSQL (TEST_DATABASE_URL); 100 deliveries of 1 MiB are stored
// through a signed integration; then a member asks for ids only, with the four-alias query that
// used to read 400 MiB of bodies. Its resident memory, read from /metrics, stays within 50 MB of
// where it was, and /readyz is answered while the queries run.

const ADMIN_TOKEN = 'deliveries-memory-admin-token-01';
const SECRET = 'deliveries-memory-signing-secret';
const MIB = 1024 * 1024;
const DELIVERIES = 100;
const RSS_BOUND = 50 * 1000 * 1000;
const LIST_QUERY = `query($a: ID!) { ${['a', 'b', 'c', 'd'].map((k) => `${k}: webhookDeliveries(agentId: $a, first: 200) { nodes { id } }`).join(' ')} }`;

/** The resident memory of the service as /metrics reports it (one retry: a kept-alive connection may have just been closed). */
async function rss(url: string, retry = true): Promise<number> {
  let text: string;
  try {
    text = await (await fetch(`${url}/metrics`)).text();
  } catch (err) {
    if (!retry) throw err;
    return rss(url, false);
  }
  const line = text.split('\n').find((l) => l.startsWith('aes_process_resident_memory_bytes '));
  if (!line) throw new Error('no aes_process_resident_memory_bytes in /metrics');
  return Number(line.split(' ')[1]);
}

/** A 1 MiB JSON body, distinct per delivery. */
function body(i: number): Buffer {
  const head = `{"delivery":${i},"pad":"`;
  return Buffer.from(head + 'x'.repeat(MIB - head.length - 2) + '"}');
}

describe('e2e: listing webhook deliveries reads no body', function () {
  this.timeout(600_000);

  it('100 stored deliveries of 1 MiB: four aliases of webhookDeliveries(first: 200) { nodes { id } }, three at once, keep RSS within +50 MB; /readyz answers meanwhile', async () => {
    const database = await databaseEnv('wh_list_memory');
    const dataDir = await dataDirWithDatabase('aes-wh-list-');
    let server: Started | undefined;
    try {
      server = await startService({
        ...database.env,
        PORT: '0',
        DATA_DIR: dataDir,
        ADMIN_TOKEN,
        LOG_LEVEL: 'warn',
        // The deliveries stay queued: what is measured is the listing, not the runs.
        WEBHOOK_WORKERS: '0',
        NODE_OPTIONS: '--max-old-space-size=384',
      });
      const url = server.url;
      const admin = graphqlClient(() => url, ADMIN_TOKEN);
      const agent = (await admin('mutation { createAgent(input: { name: "Flooded" }) { id } }')).createAgent
        .id as string;
      await admin(
        'mutation($v: String!) { createSecret(name: "signing", kind: WEBHOOK_SIGNING_SECRET, value: $v) { name } }',
        { v: SECRET },
      );
      await admin(
        'mutation($a: ID!) { addWebhook(agentId: $a, input: { integration: "events", handler: { script: "return 1;" }, signature: { scheme: HMAC_SHA256, secretName: "signing" } }) { id } }',
        {
          a: agent,
        },
      );
      const memberId = (
        await inviteNewPerson(admin, url, { email: 'reader@example.test', name: 'Reader', role: 'MEMBER' })
      ).memberId;
      const memberToken = (
        await admin('mutation($m: ID!) { createMemberToken(memberId: $m) { token } }', { m: memberId })
      ).createMemberToken.token as string;

      const stored = Date.now();
      for (let start = 0; start < DELIVERIES; start += 10) {
        await Promise.all(
          Array.from({ length: 10 }, async (_, k) => {
            const raw = body(start + k);
            const res = await fetch(`${url}/agents/${agent}/webhook/events`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'x-signature-256': `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`,
              },
              body: raw,
            });
            expect(res.status, await res.text()).to.equal(200);
          }),
        );
      }
      const storeMs = Date.now() - stored;
      const member = graphqlClient(() => url, memberToken);
      const listed = (
        await member('query($a: ID!) { webhookDeliveries(agentId: $a, first: 200) { nodes { id bodyBytes } } }', {
          a: agent,
        })
      ).webhookDeliveries.nodes as { bodyBytes: number }[];
      expect(listed.map((n) => n.bodyBytes)).to.deep.equal(Array(DELIVERIES).fill(MIB));
      // A body asked for is its first 64 KiB.
      const [newest] = (
        await member('query($a: ID!) { webhookDeliveries(agentId: $a, first: 1) { nodes { body } } }', { a: agent })
      ).webhookDeliveries.nodes as { body: string }[];
      const sent = Number(/^\{"delivery":(\d+),/.exec(newest!.body)?.[1]);
      expect(newest!.body.length).to.equal(64 * 1024);
      expect(
        newest!.body ===
          body(sent)
            .subarray(0, 64 * 1024)
            .toString(),
        'the first 64 KiB of the body sent',
      ).to.equal(true);

      const before = await rss(url);
      let peak = before;
      let querying = true;
      const sampling = (async () => {
        while (querying) {
          peak = Math.max(peak, await rss(url));
          await new Promise((r) => setTimeout(r, 25));
        }
      })();

      const started = Date.now();
      const queries = Array.from({ length: 3 }, async () => {
        const res = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${memberToken}` },
          body: JSON.stringify({ query: LIST_QUERY, variables: { a: agent } }),
        });
        const text = await res.text();
        expect(res.status, text.slice(0, 500)).to.equal(200);
        const answer = JSON.parse(text) as { data?: Record<string, { nodes: { id: string }[] }>; errors?: unknown[] };
        expect(answer.errors, text.slice(0, 500)).to.equal(undefined);
        return answer.data!;
      });
      // /readyz is asked again and again, one at a time, from the moment the three queries are on
      // their way until the last is answered; the first is sent before any query can have been
      // answered (an answer arrives on a later turn of the event loop at the earliest). Whether a
      // probe's answer comes before the queries' depends on the machine (with bodies unread the
      // queries take about 100 ms), so the test asserts what was sent while they ran was answered.
      const probes: { status: number; ms: number; sentWhileRunning: boolean }[] = [];
      let answered = 0;
      const probing = (async () => {
        do {
          const sent = Date.now();
          const sentWhileRunning = answered < queries.length;
          const res = await fetch(`${url}/readyz`);
          await res.arrayBuffer();
          probes.push({ status: res.status, ms: Date.now() - sent, sentWhileRunning });
        } while (answered < queries.length);
      })();
      for (const q of queries)
        void q.then(
          () => answered++,
          () => answered++,
        );
      const answers = await Promise.all(queries);
      await probing;
      const queryMs = Date.now() - started;
      querying = false;
      await sampling;
      peak = Math.max(peak, await rss(url));

      const grew = peak - before;
      console.log(
        `      ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'embedded'}: ${DELIVERIES} × 1 MiB stored in ${storeMs} ms; RSS ${(before / 1e6).toFixed(0)} MB → peak ${(peak / 1e6).toFixed(0)} MB (+${(grew / 1e6).toFixed(1)} MB); three queries ${queryMs} ms; ${probes.length} × /readyz, slowest ${Math.max(...probes.map((p) => p.ms))} ms (${probes.map((p) => p.status).join(' ')})`,
      );
      for (const a of answers) for (const k of ['a', 'b', 'c', 'd']) expect(a[k]!.nodes).to.have.length(DELIVERIES);
      expect(
        probes.every((p) => p.status === 200),
        `/readyz answered ${probes.map((p) => p.status).join(' ')}`,
      ).to.equal(true);
      expect(probes[0]?.sentWhileRunning, 'a /readyz was sent while the queries ran').to.equal(true);
      expect(grew, `RSS grew by ${(grew / 1e6).toFixed(1)} MB`).to.be.at.most(RSS_BOUND);
    } catch (err) {
      await new Promise((r) => setTimeout(r, 1000));
      if (server && server.child.exitCode !== null)
        throw new Error(`the service exited (${server.child.exitCode}): ${server.output().slice(-3000)}`, {
          cause: err,
        });
      throw err;
    } finally {
      await server?.stop();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
