import type { Agent } from '../core/agent.entities.js';
import type { Clock } from '../clock.js';
import type { Webhook } from '../entries/entry.entities.js';
import { DomainError, MethodNotAllowed, NotFound, PayloadTooLarge, Unauthenticated, Unavailable } from '../errors.js';
import { newId } from '../ids.js';
import type { Json } from '../json.js';
import type { Store } from '../ports.js';
import type { SecretService } from '../secrets/secret.service.js';
import { surfaceOff } from '../surfaces/surface-access.js';
import { bodyTooLarge } from '../entries/body-limit.js';
import { parsePayload, senderDeliveryId, slackChallenge } from './payload.js';
import { readReceivedBody } from './receipt-body.js';
import { startSignatureCheck, type SignatureCheck } from './signatures.js';
import { queuedAt, storable, storedHeaders, storedQuery } from './stored-delivery.js';
import type { WebhookDelivery, WebhookDeliverySummary } from './webhook.entities.js';
import type { QueueSignal } from './webhook.ports.js';

/** The methods a webhook integration is called with. */
export const WEBHOOK_METHODS = ['POST', 'PUT', 'PATCH', 'GET'];
/** How long a sender's delivery id de-duplicates redeliveries. */
export const DEDUPE_WINDOW_MS = 24 * 60 * 60_000;

/**
 * What a sender is told when its delivery was not stored, whatever failed (the insert, a lookup
 * before it while the database is away, reading the body): 503 with Retry-After, so it keeps the
 * delivery and sends it again. Never a 200 for something not stored. `reason` is what failed.
 */
export class DeliveryNotStored extends Unavailable {
  /** Why it was not stored. Not `cause`: the error mapper reads a cause as a database outage of its own to log. */
  constructor(readonly reason: unknown) {
    super('The delivery could not be stored; send it again later', 30);
  }
}

/** A callback as it arrives: the URL's parts, the headers as sent, the body still to be read. */
export interface WebhookRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  header(name: string): string | undefined;
  /** The Content-Length the sender declared (0 when none). */
  contentLength: number;
  body: AsyncIterable<Buffer>;
  /** The W3C traceparent of the span receiving it: the run that processes the delivery links to it. */
  traceparent?: string;
}

/** What the sender is answered: Slack's handshake, or the stored delivery (`duplicate`: stored before, by its sender id). */
export type ReceiptAnswer = { challenge: string } | { delivery: WebhookDeliverySummary; duplicate: boolean };

/**
 * How a receipt ended, with what the activity log keeps of it: the agent when it exists, the
 * parsed payload when the request got that far. `endConnection`: the body was refused as too large,
 * perhaps unread, so the sender's connection is not to be reused.
 */
export type Receipt =
  | { agent: Agent; payload: Json; answer: ReceiptAnswer; endConnection: false }
  | { agent: Agent | null; refused: DomainError; endConnection: boolean };

/**
 * The webhook receiver (DESIGN §6): `/agents/{agentId}/webhook/{integration}`, keyless, the URL
 * routes the call. A delivery is stored durably before the sender is answered; its run comes
 * later, from the queue (WebhookDeliveryTask).
 */
export class WebhookReceiptService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly secrets: Pick<SecretService, 'reveal'>,
    private readonly queue: QueueSignal,
  ) {}

  /**
   * Receives one callback, in this order: agent and integration (404) → method (405) → signature
   * when the integration has one (401) → surface on (403) → body size (413, over the integration's
   * `bodyLimit`) → durable store → the stored delivery (or Slack's challenge, storing nothing). A
   * sender never sees 429 or 500: a refusal stands, and anything else — an unreachable database at
   * any lookup, a body that could not be read — is DeliveryNotStored (503 with Retry-After). Never
   * throws: the refusal is returned with what the activity log needs.
   */
  async receive(agentId: string, integration: string, req: WebhookRequest): Promise<Receipt> {
    let agent: Agent | null = null;
    let unread = false;
    try {
      // An id holding U+0000 names nothing (the database could not even look it up).
      agent = agentId.includes('\u0000') ? null : await this.store.repos.agents.get(agentId);
      if (!agent) throw new NotFound('Agent', storable(agentId));
      const webhook = await this.resolve(agent, storable(integration));
      if (!WEBHOOK_METHODS.includes(req.method)) throw new MethodNotAllowed(WEBHOOK_METHODS);
      const check = await this.signatureCheck(agent, webhook, req.header);
      const body = await readReceivedBody(req.body, req.contentLength, webhook, check);
      unread = body.unread;
      if (check && !check.verify())
        throw new Unauthenticated('Webhook signature check failed: the signature does not match the body');
      if (!agent.surfaces.WEBHOOKS.enabled) throw surfaceOff(agent.id, 'WEBHOOKS');
      if (body.tooLarge) throw bodyTooLarge(webhook);
      const headers = storedHeaders(req.headers);
      const payload = parsePayload(headers, body.raw);
      const challenge = slackChallenge(payload);
      // Slack's `url_verification` handshake (scheme SLACK, or an unsigned integration called with Slack's timestamp header).
      if (
        challenge !== null &&
        (webhook.signature?.scheme === 'SLACK' || headers['x-slack-request-timestamp'] !== undefined)
      ) {
        return { agent, payload, answer: { challenge }, endConnection: false };
      }
      return {
        agent,
        payload,
        answer: await this.accept(agent, webhook, req, headers, body.raw, payload),
        endConnection: false,
      };
    } catch (err) {
      const refused =
        err instanceof DeliveryNotStored || (err instanceof DomainError && !(err instanceof Unavailable))
          ? err
          : new DeliveryNotStored(err);
      return { agent, refused, endConnection: unread || refused instanceof PayloadTooLarge };
    }
  }

  /** The agent's integration of that name, or NotFound. */
  async resolve(agent: Agent, integration: string): Promise<Webhook> {
    const webhook = (await this.store.repos.webhooks.listByAgents([agent.id])).find(
      (w) => w.integration === integration,
    );
    if (!webhook) throw new NotFound('Webhook integration', integration);
    return webhook;
  }

  /**
   * The signature check of a request to the integration, or null when it has none. A refusal
   * before the body is read (missing header, stale timestamp) and a signing secret that no longer
   * exists are Unauthenticated: nothing is stored that could not be verified.
   */
  private async signatureCheck(
    agent: Agent,
    webhook: Webhook,
    header: (name: string) => string | undefined,
  ): Promise<SignatureCheck | null> {
    if (!webhook.signature) return null;
    const secret = await this.secrets.reveal(agent.workspaceId, webhook.signature.secretName);
    if (!secret || secret.kind !== 'WEBHOOK_SIGNING_SECRET') {
      throw new Unauthenticated(
        `Webhook signature check failed: the signing secret '${webhook.signature.secretName}' is not configured`,
      );
    }
    const check = startSignatureCheck(webhook.signature.scheme, secret.value, header, this.clock.now());
    if ('refused' in check) throw new Unauthenticated(`Webhook signature check failed: ${check.refused}`);
    return check;
  }

  /**
   * Stores a delivery — the delivery and its job are one row, committed before this resolves — or
   * finds the one already stored with the same sender delivery id in the last 24 hours.
   */
  private async accept(
    agent: Agent,
    webhook: Webhook,
    req: WebhookRequest,
    headers: Record<string, string>,
    rawBody: Buffer,
    payload: Json,
  ): Promise<{ delivery: WebhookDeliverySummary; duplicate: boolean }> {
    const senderId = senderDeliveryId(webhook.signature?.scheme ?? null, headers, rawBody, payload);
    const now = this.clock.now();
    const delivery: WebhookDelivery = {
      id: newId('whd'),
      agentId: agent.id,
      webhookId: webhook.id,
      integration: webhook.integration,
      senderDeliveryId: senderId,
      dedupeKey: senderId,
      replayOf: null,
      method: req.method,
      path: storable(req.path),
      query: storedQuery(req.query),
      headers,
      rawBody,
      ...queuedAt(now),
      receiptTrace: req.traceparent ?? null,
    };
    let stored: { delivery: WebhookDeliverySummary; duplicate: boolean };
    try {
      stored = await this.store.transaction((r) =>
        r.deliveries.accept(delivery, new Date(now.getTime() - DEDUPE_WINDOW_MS)),
      );
    } catch (err) {
      throw new DeliveryNotStored(err);
    }
    if (!stored.duplicate) this.queue.onQueued();
    return stored;
  }
}
