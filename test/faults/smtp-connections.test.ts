import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { databaseEnv, graphqlClient, startService, type Started } from '../helpers/process.js';
import { rawSmtp, type RawSmtp } from '../helpers/smtp-client.js';
import { freePort } from './support.js';

// Issue 49 item 2: the SMTP listener shares the process's file descriptors with HTTP and the
// database. The service runs as `npm start` runs it, under `ulimit -n 1024`, with its default
// connection bounds (200 in all, 10 per address). 1,100 idle connections — from one address, then
// spread over 110 addresses — get 421 past the bounds, while /readyz and GraphQL (each probe on a
// fresh connection) answer throughout, and a message from another address is taken with 250.
// Embedded database without TEST_DATABASE_URL, a schema of its own in PostgreSQL with it.

const ADMIN_TOKEN = 'smtp-connections-admin-token-0123456789';
const DOMAIN = 'flood.example.test';
const FLOOD = 1_100;

/** One HTTP request on a connection of its own (a pooled keep-alive connection would hide a full descriptor table). */
function probe(url: string, method: 'GET' | 'POST', body?: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      url,
      {
        method,
        agent: false,
        timeout: 5_000,
        headers: body
          ? { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}`, connection: 'close' }
          : { connection: 'close' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/** Probes /readyz and GraphQL every 200 ms until stopped; counts what did not answer 200. */
function prober(base: string) {
  const seen = { probes: 0, failed: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const [ready, gql] = await Promise.all([
        probe(`${base}/readyz`, 'GET'),
        probe(`${base}/graphql`, 'POST', JSON.stringify({ query: '{ __typename }' })),
      ]);
      seen.probes++;
      if (ready !== 200 || gql !== 200) seen.failed++;
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return { seen, stop: async () => ((running = false), await loop, seen) };
}

/** Opens `n` connections (`from(i)` the local address of each) 100 at a time; tallies each first line. */
async function flood(port: number, n: number, from: (i: number) => string) {
  const conns: RawSmtp[] = [];
  const tally = { greeted: 0, refused421: 0, other: 0 };
  for (let start = 0; start < n; start += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, n - start) }, async (_, k) => {
        const c = await rawSmtp(port, from(start + k)).catch(() => undefined);
        if (!c) return void tally.other++;
        conns.push(c);
        const first = await c.next(15_000).catch(() => '');
        if (first.startsWith('220 ')) tally.greeted++;
        else if (first.startsWith('421 ')) tally.refused421++;
        else tally.other++;
      }),
    );
  }
  return { tally, conns };
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function closeAll(conns: RawSmtp[]) {
  conns.forEach((c) => c.end());
  await Promise.all(conns.map((c) => c.closed));
  await new Promise((r) => setTimeout(r, 300));
}

describe('faults: 1,100 idle SMTP connections under ulimit -n 1024', function () {
  this.timeout(300_000);
  let server: Started | undefined;
  let drop = async () => {};
  let dataDir = '';
  let smtpPort = 0;

  before(async () => {
    const database = await databaseEnv('smtp_flood');
    drop = database.drop;
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-smtp-flood-'));
    smtpPort = await freePort();
    const env = {
      ...database.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      LOG_LEVEL: 'error',
      SMTP_PORT: String(smtpPort),
      MAIL_DOMAIN: DOMAIN,
      WEBHOOK_WORKERS: '0',
    };
    server = await startService(env, 90_000, { nofile: 1024 });
    const gql = graphqlClient(() => server!.url, ADMIN_TOKEN);
    const agent = (await gql('mutation { createAgent(input: {name: "Flood", instructions: "x"}) { id } }')).createAgent
      .id as string;
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: EMAIL, enabled: true) { id } }', { a: agent });
    await gql(
      `mutation($a: ID!) { addChannel(agentId: $a, input: {kind: EMAIL, address: "desk@${DOMAIN}", handler: {script: "return null;"}}) { id } }`,
      { a: agent },
    );
    // Warm-up, unmeasured: the first flood a fresh process meets grows its heap to hold that many
    // sockets at once (25–33 MB on this machine, depending on when the collector runs), and later
    // floods reuse that room (3–5 MB). One flood of the same size first, so the growth measured below
    // is what a flood leaves held, not the heap's first expansion.
    const watch = prober(server.url);
    const warm = await flood(smtpPort, FLOOD, () => '127.0.4.1');
    await closeAll(warm.conns);
    await deliver('127.0.4.2');
    await watch.stop();
    await new Promise((r) => setTimeout(r, 500));
  });

  after(async () => {
    if (server && server.child.exitCode === null) await server.stop();
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** A normal message from `from`: the server's final answer (or the error's response). */
  async function deliver(from: string): Promise<string> {
    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtpPort,
      secure: false,
      ignoreTLS: true,
      localAddress: from,
      connectionTimeout: 10_000,
    });
    try {
      return (
        await client.sendMail({ from: 'ada@customer.example', to: `desk@${DOMAIN}`, subject: 'Hello', text: 'hi' })
      ).response;
    } catch (err) {
      return (err as { response?: string }).response ?? String(err);
    } finally {
      client.close();
    }
  }

  for (const shape of [
    { name: 'one address', from: () => '127.0.1.1', held: 10 },
    { name: '110 addresses', from: (i: number) => `127.0.2.${1 + (i % 110)}`, held: 200 },
  ]) {
    it(`${FLOOD} idle connections from ${shape.name}: ${shape.held} held, the rest 421; /readyz and GraphQL answer throughout`, async () => {
      const pid = server!.child.pid!;
      const rssBefore = rssMb(pid);
      const watch = prober(server!.url);
      const { tally, conns } = await flood(smtpPort, FLOOD, shape.from);
      await new Promise((r) => setTimeout(r, 1_000));
      const rssDuring = rssMb(pid);
      const fds = fs.readdirSync(`/proc/${pid}/fd`).length;
      const other = await deliver('127.0.3.1');
      const seen = await watch.stop();
      console.log(
        `      ${shape.name}: ${tally.greeted} greeted, ${tally.refused421} refused 421, ${tally.other} no answer; ` +
          `probes ${seen.probes}, failed ${seen.failed}; open descriptors ${fds}; RSS ${rssBefore.toFixed(1)} → ${rssDuring.toFixed(1)} MB; message from another address: ${other}`,
      );
      await closeAll(conns);
      expect(tally).to.deep.equal({ greeted: shape.held, refused421: FLOOD - shape.held, other: 0 });
      expect(seen.failed, '/readyz or GraphQL did not answer 200').to.equal(0);
      expect(seen.probes).to.be.above(0);
      expect(rssDuring - rssBefore, 'RSS growth (MB)').to.be.below(15);
      // One address's flood leaves room for everyone else; a full listener asks the sender to retry (421).
      if (shape.held < 200) expect(other).to.match(/^250 /);
      else expect(other).to.match(/^421 /);
      expect(await deliver('127.0.3.2'), 'a message once the flood is gone').to.match(/^250 /);
    });
  }
});
