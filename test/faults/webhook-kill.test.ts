import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { databaseEnv, startService, type Started } from '../helpers/process.js';
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

// 10,000 signed webhook deliveries while the service is killed with SIGKILL at random moments —
// while it accepts, while its queue runs, and once more after the last event was accepted — and
// started again on the same address. A sender that is answered 200 must see its event run to
// completion; a sender that retries (it never learns whether a cut-off request was stored) or
// redelivers must not get a second run from the same event id.
//
// The service is started as `npm start` starts it, on PostgreSQL (an embedded database belongs to
// one process; a killed process is restarted against the same data there too, but the suite is
// about the production setup). Deliveries are leased for 2 s, so a run cut off by a kill is taken
// up again on the retry schedule counted from 2 s after the kill.

const ADMIN_TOKEN = 'faults-webhook-kill-admin-token-0'; // 33 characters
const EVENTS = Number(process.env.FAULTS_WEBHOOK_EVENTS ?? 10_000);
const KILLS_ACCEPTING = 6;
const KILLS_DRAINING = 2;

describe('faults: SIGKILL at random moments under 10,000 signed webhook deliveries', function () {
  this.timeout(900_000);

  before(onPostgres());

  it('every event answered 200 runs to completion, none is lost, none runs from two deliveries', async () => {
    const database = await databaseEnv('faults_kill');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-faults-kill-'));
    const port = await freePort();
    const env = {
      ...database.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      WEBHOOK_LEASE_SECONDS: '2',
      WEBHOOK_WORKERS: '8',
    };
    let server: Started | undefined;
    let sql: pg.Client | undefined;
    const connect = async () => (sql ??= await sqlClient(database.env.DATABASE_URL!));
    const kills: { at: number; phase: string }[] = [];
    try {
      server = await startService(env);
      const url = server.url;
      const { agent, doc } = await recordingAgent(() => url, ADMIN_TOKEN);
      const sender = new WebhookSender(() => `${url}/agents/${agent}/webhook`, { redeliverEvery: 20 });

      // The killer: SIGKILL at random moments, started again at once on the same address —
      // KILLS_ACCEPTING times while events are accepted (each once a random share of the events has
      // been accepted, whatever the speed of the machine, and at least a second after the start),
      // then KILLS_DRAINING times after 0.5–2 s of uptime once the last event was accepted.
      let sending = true;
      const restarts: number[] = [];
      const thresholds = Array.from({ length: KILLS_ACCEPTING }, () =>
        Math.floor(EVENTS * (0.05 + 0.9 * Math.random())),
      ).sort((a, b) => a - b);
      const killOnce = async () => {
        const victim = server!;
        victim.child.kill('SIGKILL');
        await new Promise((r) =>
          victim.child.exitCode !== null || victim.child.signalCode !== null ? r(null) : victim.child.once('exit', r),
        );
        kills.push({ at: Date.now(), phase: sending ? 'accepting' : 'draining' });
        const t = Date.now();
        server = await startService(env);
        restarts.push(Date.now() - t);
      };
      const killer = (async () => {
        for (const threshold of thresholds) {
          await new Promise((r) => setTimeout(r, 1000));
          await until(
            'the next kill point',
            async () => (sender.counts.accepted >= threshold || !sending ? true : undefined),
            600_000,
          );
          if (!sending) break;
          await killOnce();
        }
        while (sending) await new Promise((r) => setTimeout(r, 50));
        for (let k = 0; k < KILLS_DRAINING; k++) {
          await new Promise((r) => setTimeout(r, 500 + Math.random() * 1500));
          await killOnce();
        }
      })();

      const started = Date.now();
      await sender.send(0, EVENTS, 32);
      sending = false;
      const acceptMs = Date.now() - started;
      await killer;
      await drained(connect);
      const drainMs = Date.now() - started - acceptMs;

      const r = await reconcile(await connect(), sender, doc);
      const c = sender.counts;
      console.log(
        `      webhooks under SIGKILL: sent ${c.sent}, accepted ${c.accepted}, run ${r.run}, lost ${r.lost.length}, duplicated ${r.duplicated.length}` +
          ` (${kills.length} kills: ${kills.filter((k) => k.phase === 'accepting').length} while accepting, ${kills.filter((k) => k.phase === 'draining').length} while draining;` +
          ` ${c.retries} attempts retried by the sender, ${c.redelivered} redeliveries; ${r.rerunAfterCut} runs cut off by a kill and run again;` +
          ` accepted in ${(acceptMs / 1000).toFixed(1)} s, drained ${(drainMs / 1000).toFixed(1)} s later; a restart took ${Math.round(restarts.reduce((a, b) => a + b, 0) / Math.max(1, restarts.length))} ms on average)`,
      );
      expect(c.unexpected, 'statuses other than 200 and 503').to.deep.equal(new Map());
      expect(kills.filter((k) => k.phase === 'accepting').length, 'kills while accepting').to.be.at.least(
        KILLS_ACCEPTING - 1,
      );
      expect(kills.filter((k) => k.phase === 'draining').length, 'kills while draining').to.be.at.least(KILLS_DRAINING);
      expect(c.accepted).to.equal(EVENTS);
      expect(r.lost, 'accepted but not run to completion').to.deep.equal([]);
      expect(r.duplicated, 'one event stored or run as two deliveries').to.deep.equal([]);
      expect(c.redeliveryMismatches, 'a redelivery answered with another delivery id').to.equal(0);
      expect(r.sameAttemptTwice, 'one attempt run twice (two holders of a lease)').to.equal(0);
      expect(r.unfinished).to.equal(0);
      expect(r.run).to.equal(EVENTS);
    } finally {
      if (server && server.child.exitCode === null) await server.stop();
      await sql?.end().catch(() => {});
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
