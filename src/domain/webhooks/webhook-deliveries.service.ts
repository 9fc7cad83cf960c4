import { z } from 'zod';
import type { Clock } from '../clock.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { Invalid, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import { loadAgent } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import { parse } from '../validation.js';
import { queuedAt } from './stored-delivery.js';
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDeliverySummary } from './webhook.entities.js';
import type { QueueSignal } from './webhook.ports.js';

/** The largest page of `webhookDeliveries`. */
export const MAX_DELIVERY_PAGE = 200;
/** How much of a delivery's body a listing shows (the beginning; `bodyBytes` gives the whole size). */
export const DELIVERY_BODY_SHOWN_BYTES = 64 * 1024;

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

/**
 * Stored webhook deliveries as their owners see them (DESIGN §6): listed, replayed, and pruned by
 * housekeeping once finished.
 */
export class WebhookDeliveriesService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly queue: QueueSignal,
  ) {}

  /** An agent's deliveries, newest first, optionally of one integration and one status. Whoever may read the agent. */
  async list(
    p: Principal,
    agentId: string,
    input: { first: number; after?: string; integration?: string; status?: DeliveryStatus },
  ): Promise<DeliveryPage> {
    const v = parse(listInput, input);
    const agent = await loadAgent(this.store.repos, p, agentId, 'read');
    let webhookId: string | undefined;
    if (v.integration !== undefined) {
      const webhook = (await this.store.repos.webhooks.listByAgents([agent.id])).find(
        (w) => w.integration === v.integration,
      );
      if (!webhook) throw new NotFound('Webhook integration', v.integration);
      webhookId = webhook.id;
    }
    const rows = await this.store.repos.deliveries.list(agentId, {
      first: v.first + 1,
      after: v.after ? decodeCursor(v.after) : undefined,
      webhookId,
      status: v.status,
    });
    const nodes = rows.slice(0, v.first);
    return {
      nodes,
      hasNextPage: rows.length > v.first,
      endCursor: nodes.length ? encodeCursor(nodes[nodes.length - 1]!) : null,
    };
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
    this.queue.onQueued();
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
