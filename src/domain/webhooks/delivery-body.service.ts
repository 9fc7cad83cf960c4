import { readableAgentIds } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import { DELIVERY_BODY_SHOWN_BYTES } from './webhook-deliveries.service.js';

/** The shown beginning of webhook deliveries' bodies, read for a page of deliveries at once. */
export class DeliveryBodyService {
  constructor(private readonly store: Store) {}

  /**
   * The first DELIVERY_BODY_SHOWN_BYTES of each delivery's body as UTF-8 text, by id, for deliveries
   * of agents the principal may read; others (and deliveries that no longer exist) are absent.
   */
  async heads(p: Principal, ids: readonly string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const heads = await this.store.repos.deliveries.bodyHeads(ids, DELIVERY_BODY_SHOWN_BYTES);
    const readable = await readableAgentIds(
      this.store.repos,
      p,
      [...heads.values()].map((h) => h.agentId),
    );
    return new Map(
      [...heads].filter(([, h]) => readable.has(h.agentId)).map(([id, h]) => [id, h.head.toString('utf8')]),
    );
  }
}
