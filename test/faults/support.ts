import net from 'node:net';
import pg from 'pg';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { graphqlClient } from '../helpers/process.js';
import { postgresBinDir } from './private-postgres.js';

// What the fault tests share: a webhook sender that behaves like a real one (signs each attempt,
// retries until it gets a 200, sometimes delivers an event again), the bookkeeping of what it was
// told, and the check of that bookkeeping against the database.

export const SIGNING_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/**
 * A `before` hook for the suite's PostgreSQL tests: skipped, saying why, without TEST_DATABASE_URL;
 * with `serverBinaries`, failing when the PostgreSQL server programs are not installed.
 */
export function onPostgres(opts: { serverBinaries?: boolean } = {}) {
  return function (this: Mocha.Context) {
    if (!process.env.TEST_DATABASE_URL) {
      console.log('      (skipped: the fault suite runs on PostgreSQL — set TEST_DATABASE_URL)');
      this.skip();
    }
    if (opts.serverBinaries && !postgresBinDir())
      throw new Error('this test needs the PostgreSQL server programs (apt-get install -y postgresql)');
  };
}

import { until } from '../helpers/until.js';

export { until };

/** A connected SQL client on the service's database (the URL carries its search_path). */
export async function sqlClient(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {}); // a server restart ends the connection; the test reconnects when it needs to
  await c.connect();
  return c;
}

/** A TCP port nothing listens on now (a restarted service keeps its address). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/**
 * An agent whose webhook integration `events` is signed with Standard Webhooks and whose handler
 * records each run — the delivery id, the sender's id and the attempt — in a database document.
 */
export async function recordingAgent(
  url: () => string,
  adminToken: string,
  opts: { maxConcurrentRequests?: number } = {},
): Promise<{ agent: string; doc: string }> {
  const gql = graphqlClient(url, adminToken);
  const agent = (
    await gql('mutation { createAgent(input: { name: "Faults", description: "Records every run" }) { id } }')
  ).createAgent.id as string;
  if (opts.maxConcurrentRequests) {
    await gql('mutation($a: ID!, $n: Int!) { setAgentLimits(agentId: $a, maxConcurrentRequests: $n) { id } }', {
      a: agent,
      n: opts.maxConcurrentRequests,
    });
  }
  const doc = (
    await gql('mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: {
        name: 'runs',
        kind: 'DATABASE',
        fields: [
          { name: 'deliveryId', type: 'STRING', required: true },
          { name: 'senderId', type: 'STRING', required: true },
          { name: 'attempt', type: 'NUMBER', required: true },
        ],
      },
    })
  ).createDocument.id as string;
  await gql(
    'mutation($n: String!, $v: String!) { createSecret(name: $n, kind: WEBHOOK_SIGNING_SECRET, value: $v) { name } }',
    { n: 'faults', v: SIGNING_SECRET },
  );
  const handler =
    `const DOC = ${JSON.stringify(doc)};` +
    ' await documents.insert(DOC, [{ deliveryId: request.delivery.id, senderId: request.headers["webhook-id"], attempt: request.delivery.attempt }]);' +
    ' return { ok: true };';
  await gql('mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
    a: agent,
    i: {
      integration: 'events',
      handler: { script: handler },
      signature: { scheme: 'STANDARD_WEBHOOKS', secretName: 'faults' },
    },
  });
  return { agent, doc };
}

export interface SenderCounts {
  /** Distinct events the sender had to deliver. */
  sent: number;
  /** Distinct events answered 200. */
  accepted: number;
  /** Attempts that got no 200 (connection refused or reset, 503) and were sent again. */
  retries: number;
  /** Events delivered again after their 200, as senders do when unsure. */
  redelivered: number;
  /** Statuses other than 200 and 503, by status (a fault test expects none). */
  unexpected: Map<number, number>;
  /** Redeliveries answered with another delivery id than the first 200 gave. */
  redeliveryMismatches: number;
}

/**
 * Sends events `evt-<i>` to a webhook receiver with `concurrency` parallel connections, the way a
 * webhook provider does: each attempt is signed afresh (Standard Webhooks), a connection error or a
 * 503 is retried after a short pause, a 200 ends the event. A share of events is sent once more
 * after its 200 (a redelivery) and must be answered with the same delivery id.
 */
export class WebhookSender {
  /** Sender id → delivery id from the first 200. */
  readonly accepted = new Map<string, string>();
  readonly counts: SenderCounts = {
    sent: 0,
    accepted: 0,
    retries: 0,
    redelivered: 0,
    unexpected: new Map(),
    redeliveryMismatches: 0,
  };
  /** 200s and 503s over time, for "back to normal" measurements. */
  readonly answers: { at: number; status: number }[] = [];
  private readonly signer = new StandardWebhook(SIGNING_SECRET);

  constructor(
    private readonly target: () => string,
    private readonly opts: { redeliverEvery?: number; retryPauseMs?: number } = {},
  ) {}

  /** Delivers events `evt-<from>` … `evt-<to - 1>`; resolves when every one was answered 200. */
  async send(from: number, to: number, concurrency: number, deadlineMs = 600_000): Promise<void> {
    const queue: { i: number; again: boolean }[] = [];
    for (let i = from; i < to; i++) queue.push({ i, again: false });
    this.counts.sent += to - from;
    const deadline = Date.now() + deadlineMs;
    const worker = async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const senderId = `evt-${job.i}`;
        for (;;) {
          if (Date.now() > deadline) throw new Error(`${senderId} was not accepted before the deadline`);
          const status = await this.attempt(senderId, job.i, job.again);
          if (status === 200) break;
          this.counts.retries++;
          await new Promise((r) => setTimeout(r, this.opts.retryPauseMs ?? 100));
        }
        const every = this.opts.redeliverEvery ?? 0;
        if (!job.again && every > 0 && job.i % every === 0) queue.push({ i: job.i, again: true });
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  private async attempt(senderId: string, i: number, again: boolean): Promise<number> {
    const body = JSON.stringify({ type: 'order.created', data: { i } });
    const at = new Date();
    let res: Response;
    try {
      res = await fetch(`${this.target()}/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': senderId,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': this.signer.sign(senderId, at, body),
        },
        body,
        signal: AbortSignal.timeout(30_000),
      });
    } catch {
      return 0; // refused, reset or timed out: the sender cannot know whether it was stored
    }
    const text = await res.text().catch(() => '');
    this.answers.push({ at: Date.now(), status: res.status });
    if (res.status === 200) {
      const deliveryId = (JSON.parse(text) as { deliveryId: string }).deliveryId;
      const first = this.accepted.get(senderId);
      if (first === undefined) {
        this.accepted.set(senderId, deliveryId);
        this.counts.accepted++;
      } else if (first !== deliveryId) {
        this.counts.redeliveryMismatches++;
      }
      if (again) this.counts.redelivered++;
      return 200;
    }
    if (res.status !== 503) this.counts.unexpected.set(res.status, (this.counts.unexpected.get(res.status) ?? 0) + 1);
    return res.status;
  }
}

export interface Reconciled {
  /** Accepted events with no delivery that ran to completion. */
  lost: string[];
  /** Events stored as more than one delivery, or run from more than one delivery. */
  duplicated: string[];
  /** Accepted events with a completed delivery and its completing run recorded. */
  run: number;
  /** Runs cut off (by a kill) and run again: deliveries with more than one recorded run. */
  rerunAfterCut: number;
  /** Deliveries with two runs recorded for the same attempt (two holders of one lease). */
  sameAttemptTwice: number;
  /** Deliveries still pending or running. */
  unfinished: number;
}

/**
 * Checks what the sender was told against the database: every event answered 200 has exactly one
 * delivery, it is DONE, and the run that completed it (its last attempt) recorded itself.
 */
export async function reconcile(sql: pg.Client, sender: WebhookSender, doc: string): Promise<Reconciled> {
  const deliveries = new Map<string, { ids: Set<string>; done: Map<string, number> }>();
  let unfinished = 0;
  for (const r of (await sql.query('select id, sender_delivery_id, status, attempts from webhook_deliveries')).rows) {
    const e = deliveries.get(r.sender_delivery_id) ?? { ids: new Set(), done: new Map() };
    e.ids.add(r.id);
    if (r.status === 'DONE') e.done.set(r.id, Number(r.attempts));
    else unfinished++;
    deliveries.set(r.sender_delivery_id, e);
  }
  const runs = new Map<string, number[]>();
  const senders = new Map<string, Set<string>>();
  for (const r of (
    await sql.query(
      "select data->>'deliveryId' as d, data->>'senderId' as s, (data->>'attempt')::int as a from document_records where document_id = $1",
      [doc],
    )
  ).rows) {
    runs.set(r.d, [...(runs.get(r.d) ?? []), Number(r.a)]);
    senders.set(r.s, (senders.get(r.s) ?? new Set()).add(r.d));
  }
  const lost: string[] = [];
  const duplicated: string[] = [];
  let run = 0;
  for (const [senderId, deliveryId] of sender.accepted) {
    const stored = deliveries.get(senderId);
    const attempts = stored?.done.get(deliveryId);
    if (!stored || attempts === undefined || !(runs.get(deliveryId) ?? []).includes(attempts)) lost.push(senderId);
    else run++;
  }
  for (const [senderId, d] of deliveries) if (d.ids.size > 1) duplicated.push(senderId);
  for (const [senderId, ids] of senders)
    if (sender.accepted.has(senderId) && ids.size > 1 && !duplicated.includes(senderId)) duplicated.push(senderId);
  let rerunAfterCut = 0;
  let sameAttemptTwice = 0;
  for (const attempts of runs.values()) {
    if (attempts.length > 1) rerunAfterCut++;
    if (new Set(attempts).size < attempts.length) sameAttemptTwice++;
  }
  return { lost, duplicated, run, rerunAfterCut, sameAttemptTwice, unfinished };
}

/** Waits until no delivery is pending or running. */
export async function drained(sql: () => Promise<pg.Client>, deadlineMs = 300_000): Promise<void> {
  await until(
    'the webhook queue to drain',
    async () => {
      try {
        const n = Number(
          (
            await (
              await sql()
            ).query("select count(*) as n from webhook_deliveries where status in ('PENDING', 'RUNNING')")
          ).rows[0].n,
        );
        return n === 0 ? true : undefined;
      } catch {
        return undefined;
      }
    },
    deadlineMs,
  );
}
