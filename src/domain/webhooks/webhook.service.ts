import { z } from 'zod';
import type { Clock } from '../clock.js';
import { DomainError, Forbidden, Invalid, LimitExceeded, NotFound, Unauthenticated, Unavailable } from '../errors.js';
import type { Agent } from '../agents/agent.entities.js';
import type { Webhook } from '../entries/entry.entities.js';
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDelivery, type WebhookDeliverySummary } from './webhook.entities.js';
import { newId } from '../ids.js';
import { isCredentialHeader } from '../keys/credentials.js';
import { loadAgent } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import type { DeliverySettlement } from './webhook.ports.js';
import type { AdmittedRun, Pipeline } from '../runtime/pipeline.js';
import type { Json } from '../json.js';
import type { RunEntry, RunInput, RunResult } from '../runtime/run.types.js';
import type { SecretService } from '../secrets/secret.service.js';
import { parse } from '../validation.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { parsePayload, senderDeliveryId, slackChallenge } from './payload.js';
import { MAX_DELIVERY_ATTEMPTS, retryDelayMs } from './retry-schedule.js';
import { startSignatureCheck, type SignatureCheck } from './signatures.js';
import { surfaceOff } from '../surfaces/surface-access.js';

/**
 * What a sender is told when its delivery was not stored, whatever failed (the insert, or a lookup
 * before it while the database is away): 503 with Retry-After, so it keeps the delivery and sends
 * it again. Never a 200 for something not stored.
 */
export function deliveryNotStored(): Unavailable {
  return new Unavailable('The delivery could not be stored; send it again later', 30);
}

/** How long a sender's delivery id de-duplicates redeliveries. */
export const DEDUPE_WINDOW_MS = 24 * 60 * 60_000;
/** The largest page of `webhookDeliveries`. */
export const MAX_DELIVERY_PAGE = 200;
/** How much of a delivery's body a listing shows (the beginning; `bodyBytes` gives the whole size). */
export const DELIVERY_BODY_SHOWN_BYTES = 64 * 1024;

export interface WebhookConfig {
  /** How long a claimed delivery stays with its instance without a renewal. */
  leaseMs: number;
  /** Jitter source of the retry schedule. */
  random: () => number;
}

export const DEFAULT_WEBHOOK_CONFIG: WebhookConfig = { leaseMs: 30_000, random: Math.random };

/** A callback as the receiver read it: the body byte-exact, the headers as sent. */
export interface InboundDelivery {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
}

/** How one processing attempt ended. */
export type AttemptOutcome = 'done' | 'retry' | 'deferred' | 'failed' | 'lost';

/** A delivery as the queue holds it: its body is read when it runs. */
export type QueuedDelivery = Omit<WebhookDelivery, 'rawBody'>;

export interface DeliveryPage {
  nodes: WebhookDeliverySummary[];
  endCursor: string | null;
  hasNextPage: boolean;
}

const pageMessage = `must be between 1 and ${MAX_DELIVERY_PAGE}`;
const listInput = z.object({
  first: z.number().int().min(1, pageMessage).max(MAX_DELIVERY_PAGE, pageMessage),
  after: z.string().max(200).optional(),
  integration: z.string().max(200).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
});


/** The state of a delivery queued at `now`, before any attempt. */
function queuedAt(now: Date): Pick<WebhookDelivery, 'bodyDroppedAt' | 'status' | 'attempts' | 'failures' | 'lastError' | 'runId' | 'nextAttemptAt' | 'lockedUntil' | 'createdAt' | 'updatedAt' | 'completedAt'> {
  return { bodyDroppedAt: null, status: 'PENDING', attempts: 0, failures: 0, lastError: null, runId: null, nextAttemptAt: now, lockedUntil: null, createdAt: now, updatedAt: now, completedAt: null };
}

/** PostgreSQL cannot store U+0000 in text or jsonb; a sender's query may hold one (`%00`). */
const storable = (v: string) => v.replace(/\u0000/g, '\uFFFD');

/** Headers as stored with a delivery and given to its runs: lower-case names, no credential or signature values. */
export function storedHeaders(headers: InboundDelivery['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || isCredentialHeader(k)) continue;
    out[k.toLowerCase()] = storable(Array.isArray(v) ? v.join(', ') : v);
  }
  return out;
}

/** The query string as stored: U+0000 shown as U+FFFD, so that no query can make a delivery unstorable. */
export function storedQuery(query: InboundDelivery['query']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(query)) out[storable(k)] = Array.isArray(v) ? v.map(storable) : storable(v);
  return out;
}

/**
 * The webhook surface (DESIGN §6): resolving an integration, checking its sender's signature,
 * storing a delivery durably before the sender is answered, and processing stored deliveries
 * through the run pipeline — at least once, retried on a schedule, deferred while a limit refuses
 * the run, de-duplicated by the sender's delivery id.
 */
export class WebhookService {
  /** Called after a delivery is stored, so this instance's worker picks it up at once. */
  onAccepted: () => void = () => {};

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly secrets: SecretService,
    private readonly pipeline: Pipeline,
    private readonly config: WebhookConfig = DEFAULT_WEBHOOK_CONFIG,
  ) {}

  /** The agent's integration of that name, or NotFound (agent unknown or integration undefined). */
  async resolve(agent: Agent | null, agentId: string, integration: string): Promise<Webhook> {
    if (!agent) throw new NotFound('Agent', agentId);
    const webhook = (await this.store.repos.webhooks.listByAgents([agent.id])).find((w) => w.integration === integration);
    if (!webhook) throw new NotFound('Webhook integration', integration);
    return webhook;
  }

  /**
   * The signature check of a request to the integration, or null when it has none. A refusal
   * before the body is read (missing header, stale timestamp) and a signing secret that no longer
   * exists are Unauthenticated: nothing is stored that could not be verified.
   */
  async signatureCheck(agent: Agent, webhook: Webhook, header: (name: string) => string | undefined): Promise<SignatureCheck | null> {
    if (!webhook.signature) return null;
    const secret = await this.secrets.reveal(agent.workspaceId, webhook.signature.secretName);
    if (!secret || secret.kind !== 'WEBHOOK_SIGNING_SECRET') {
      throw new Unauthenticated(`Webhook signature check failed: the signing secret '${webhook.signature.secretName}' is not configured`);
    }
    const check = startSignatureCheck(webhook.signature.scheme, secret.value, header, this.clock.now());
    if ('refused' in check) throw new Unauthenticated(`Webhook signature check failed: ${check.refused}`);
    return check;
  }

  /** Forbidden while the agent's webhook surface is off. */
  assertOn(agent: Agent): void {
    if (!agent.surfaces.WEBHOOKS.enabled) throw surfaceOff(agent.id, 'WEBHOOKS');
  }

  /**
   * Stores a delivery — the delivery and its job are one row, committed before this resolves — or
   * finds the one already stored with the same sender delivery id in the last 24 hours. Any
   * storage failure is Unavailable: the sender must retry, and is never told a delivery was
   * received that was not stored.
   */
  async accept(agent: Agent, webhook: Webhook, inbound: InboundDelivery, payload?: Json): Promise<{ delivery: WebhookDeliverySummary; duplicate: boolean }> {
    const headers = storedHeaders(inbound.headers);
    const senderId = senderDeliveryId(webhook.signature?.scheme ?? null, headers, inbound.rawBody, payload);
    const now = this.clock.now();
    const delivery: WebhookDelivery = {
      id: newId('whd'),
      agentId: agent.id,
      webhookId: webhook.id,
      integration: webhook.integration,
      senderDeliveryId: senderId,
      dedupeKey: senderId,
      replayOf: null,
      method: inbound.method,
      path: storable(inbound.path),
      query: storedQuery(inbound.query),
      headers,
      rawBody: inbound.rawBody,
      ...queuedAt(now),
    };
    let stored: { delivery: WebhookDeliverySummary; duplicate: boolean };
    try {
      stored = await this.store.transaction((r) => r.deliveries.accept(delivery, new Date(now.getTime() - DEDUPE_WINDOW_MS)));
    } catch (err) {
      throw deliveryNotStored();
    }
    if (!stored.duplicate) this.onAccepted();
    return stored;
  }

  /**
   * A verified request on an open receiver: Slack's `url_verification` handshake is answered with
   * its challenge (scheme SLACK, or an unsigned integration called with Slack's timestamp header)
   * and nothing is stored; anything else is stored by `accept`. `payload` is the parsed body, for the log.
   */
  async receive(
    agent: Agent,
    webhook: Webhook,
    inbound: InboundDelivery,
  ): Promise<{ payload: Json; answer: { challenge: string } | { delivery: WebhookDeliverySummary; duplicate: boolean } }> {
    const headers = storedHeaders(inbound.headers);
    const payload = parsePayload(headers, inbound.rawBody);
    const challenge = slackChallenge(payload);
    if (challenge !== null && (webhook.signature?.scheme === 'SLACK' || headers['x-slack-request-timestamp'] !== undefined)) {
      return { payload, answer: { challenge } };
    }
    return { payload, answer: await this.accept(agent, webhook, inbound, payload) };
  }

  /** Takes up to `limit` due deliveries for this instance, each under a lease, fairly between agents (in the order to run them). */
  claim(limit: number): Promise<WebhookDeliverySummary[]> {
    const now = this.clock.now();
    return this.store.repos.deliveries.claim(now, new Date(now.getTime() + this.config.leaseMs), limit);
  }

  /** Gives a delivery this instance is running back to the queue (shutdown at its deadline). */
  handBack(d: QueuedDelivery): Promise<boolean> {
    return this.store.repos.deliveries.handBack(d.id, d.attempts, this.clock.now());
  }

  /** Extends the lease of a delivery being processed; false when this instance no longer holds it. */
  renew(d: QueuedDelivery): Promise<boolean> {
    return this.store.repos.deliveries.renew(d.id, d.attempts, new Date(this.clock.now().getTime() + this.config.leaseMs));
  }

  /** The run input of a delivery (DESIGN §5): the parsed payload as `body`, the raw body as text. */
  runInput(d: WebhookDelivery): RunInput {
    return {
      surface: 'WEBHOOKS',
      method: d.method,
      path: d.integration,
      params: { integration: d.integration },
      query: d.query,
      headers: d.headers,
      body: parsePayload(d.headers, d.rawBody),
      rawBody: d.rawBody.toString('utf8'),
      delivery: { id: d.id, attempt: d.attempts, senderDeliveryId: d.senderDeliveryId },
    };
  }

  /**
   * One processing attempt of a claimed delivery, through the pipeline like any surface's run (its
   * `run` entry in the activity log included). A limit refusal or a busy sandbox defers the delivery
   * to its Retry-After without counting a failure; a refusal no retry can change (input guardrails)
   * fails it; any other failure is retried on the schedule, and the last one fails it.
   */
  async process(d: QueuedDelivery): Promise<AttemptOutcome> {
    const [agent, webhook] = await Promise.all([this.store.repos.agents.get(d.agentId), this.store.repos.webhooks.get(d.webhookId)]);
    if (!agent || !webhook) return this.fail(d, 'The agent or its webhook integration was removed', null);
    if (d.failures >= MAX_DELIVERY_ATTEMPTS) {
      // The claim already counted the lost attempt; this one runs nothing, so it adds no failure.
      return this.fail(d, `Stopped after ${d.failures} attempts; the last did not finish (the instance running it stopped)`, d.runId, d.failures);
    }
    const entry: RunEntry = { kind: 'webhook', id: webhook.id, name: webhook.integration, handler: webhook.handler, modelOverride: webhook.modelOverride };
    const principal: Principal = { kind: 'agentSelf', workspaceId: agent.workspaceId, agentId: agent.id };
    // Read for this one delivery only: claims carry no body (a batch of them would hold megabytes).
    const rawBody = await this.store.repos.deliveries.body(d.id);
    if (rawBody === null) return this.fail(d, 'The delivery was removed', null);
    let run: AdmittedRun;
    try {
      run = await this.pipeline.begin(principal, agent, entry, this.runInput({ ...d, rawBody }));
    } catch (err) {
      if (err instanceof LimitExceeded || err instanceof Unavailable) return this.defer(d, err);
      if (err instanceof DomainError) return this.fail(d, err.message, null);
      return this.retry(d, 'The run could not start', null);
    }
    let result: RunResult | undefined;
    try {
      for await (const ev of run.events()) if (ev.type === 'done') result = ev.result;
    } catch (err) {
      if (err instanceof Unavailable) return this.defer(d, err);
      return this.retry(d, err instanceof DomainError ? err.message : 'The run failed', null);
    }
    if (!result) return this.retry(d, 'The run ended without a result', null);
    if (result.error) return this.retry(d, result.error.message, result.runId);
    return this.settle(d, 'done', { status: 'DONE', failures: d.failures, nextAttemptAt: d.nextAttemptAt, lastError: null, runId: result.runId, completedAt: this.clock.now() });
  }

  private defer(d: QueuedDelivery, err: LimitExceeded | Unavailable): Promise<AttemptOutcome> {
    const next = new Date(this.clock.now().getTime() + err.retryAfterSeconds * 1000);
    return this.settle(d, 'deferred', { status: 'PENDING', failures: d.failures, nextAttemptAt: next, lastError: err.message, runId: d.runId, completedAt: null });
  }

  private retry(d: QueuedDelivery, error: string, runId: string | null): Promise<AttemptOutcome> {
    const failures = d.failures + 1;
    const delay = retryDelayMs(failures, this.config.random);
    if (delay === null) return this.fail(d, error, runId, failures);
    const next = new Date(this.clock.now().getTime() + delay);
    return this.settle(d, 'retry', { status: 'PENDING', failures, nextAttemptAt: next, lastError: error, runId, completedAt: null });
  }

  private fail(d: QueuedDelivery, error: string, runId: string | null, failures = d.failures + 1): Promise<AttemptOutcome> {
    const now = this.clock.now();
    return this.settle(d, 'failed', { status: 'FAILED', failures, nextAttemptAt: d.nextAttemptAt, lastError: error, runId, completedAt: now });
  }

  private async settle(d: QueuedDelivery, outcome: AttemptOutcome, s: Omit<DeliverySettlement, 'updatedAt'>): Promise<AttemptOutcome> {
    const held = await this.store.repos.deliveries.settle(d.id, d.attempts, { ...s, updatedAt: this.clock.now() });
    return held ? outcome : 'lost';
  }

  /** An agent's deliveries, newest first, optionally of one integration and one status. Whoever may read the agent. */
  async list(p: Principal, agentId: string, input: { first: number; after?: string; integration?: string; status?: DeliveryStatus }): Promise<DeliveryPage> {
    const v = parse(listInput, input);
    const agent = await loadAgent(this.store.repos, p, agentId, 'read');
    let webhookId: string | undefined;
    if (v.integration !== undefined) webhookId = (await this.resolve(agent, agentId, v.integration)).id;
    const rows = await this.store.repos.deliveries.list(agentId, {
      first: v.first + 1,
      after: v.after ? decodeCursor(v.after) : undefined,
      webhookId,
      status: v.status,
    });
    const nodes = rows.slice(0, v.first);
    return { nodes, hasNextPage: rows.length > v.first, endCursor: nodes.length ? encodeCursor(nodes[nodes.length - 1]!) : null };
  }

  /**
   * Runs a stored delivery again, whatever its status: a new delivery with the same request,
   * `replayOf` naming the original, queued now. Whoever may manage the agent's surfaces. Invalid
   * once housekeeping has dropped the original's body.
   */
  async replay(p: Principal, id: string): Promise<WebhookDeliverySummary> {
    const original = await this.store.repos.deliveries.get(id);
    if (!original) throw new NotFound('Webhook delivery', id);
    try {
      await loadAgent(this.store.repos, p, original.agentId, 'manageSurfaces');
    } catch (err) {
      // A delivery of an agent the caller cannot see does not exist for them.
      if (err instanceof NotFound) throw new NotFound('Webhook delivery', id);
      throw err;
    }
    if (original.bodyDroppedAt) {
      throw new Invalid(
        `Webhook delivery '${id}' cannot be replayed: its body was dropped on ${original.bodyDroppedAt.toISOString()}, after its replay window; ask the sender to send it again`,
        'id',
      );
    }
    const now = this.clock.now();
    const copy = await this.store.repos.deliveries.insert({
      ...original,
      id: newId('whd'),
      dedupeKey: null,
      replayOf: original.id,
      ...queuedAt(now),
    });
    this.onAccepted();
    return copy;
  }

  /** Deletes finished deliveries older than `days` (housekeeping); pending ones are never deleted. */
  prune(days: number): Promise<number> {
    return this.store.repos.deliveries.prune(new Date(this.clock.now().getTime() - days * 86_400_000));
  }

  /**
   * Drops the bodies of deliveries finished (DONE or FAILED) more than `days` ago — their replay
   * window — keeping the rows (housekeeping). Such a delivery can no longer be replayed.
   */
  dropBodies(days: number): Promise<number> {
    const now = this.clock.now();
    return this.store.repos.deliveries.dropBodies(new Date(now.getTime() - days * 86_400_000), now);
  }
}
