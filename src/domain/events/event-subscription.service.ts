import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { Invalid, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import { loadAgent, requireAdmin, requireMember } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import type { Cipher } from '../secrets/secret.ports.js';
import { parse } from '../validation.js';
import { EVENT_KINDS, type EventAttempt, type EventDelivery, type EventSubscription } from './event.entities.js';
import type { EventQueueSignal } from './event.ports.js';
import { newDelivery } from './event-outbox.service.js';
import { sampleEventData } from './event-schemas.js';

/** The longest URL a subscription may have. */
export const EVENT_URL_MAX = 2000;
/** The most subscriptions a workspace may have (each event is one insert of up to this many rows). */
export const MAX_SUBSCRIPTIONS = 50;

/** The URL's parts, or null when it is not one (the checks below then report the first problem only). */
const parsedUrl = (u: string) => {
  try {
    return new URL(u);
  } catch {
    return null;
  }
};

const url = z
  .string()
  .trim()
  .max(EVENT_URL_MAX, `must be at most ${EVENT_URL_MAX} characters`)
  .refine((u) => /^https?:$/i.test(parsedUrl(u)?.protocol ?? ''), 'must be an http(s) URL')
  .refine((u) => !parsedUrl(u)?.username && !parsedUrl(u)?.password, 'must not carry credentials');
const kinds = z
  .array(z.enum(EVENT_KINDS, { message: `must be one of ${EVENT_KINDS.join(', ')}` }))
  .min(1, 'name at least one event kind')
  .max(EVENT_KINDS.length)
  .transform((ks) => [...new Set(ks)]);

const createInput = z.strictObject({
  url,
  kinds,
  agentId: z.string().max(100).nullable().optional(),
  description: z.string().trim().max(500).optional(),
});
const updateInput = z.strictObject({
  url: url.optional(),
  kinds: kinds.optional(),
  agentId: z.string().max(100).nullable().optional(),
  description: z.string().trim().max(500).optional(),
  enabled: z.boolean().optional(),
});

/** A new signing secret: `whsec_` and 24 random bytes in base64 (Standard Webhooks). */
export const newSigningSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** Workspace admins' subscriptions of URLs to events; members and viewers read them and their deliveries. */
export class EventSubscriptionService {
  constructor(
    private readonly store: Store,
    private readonly cipher: Cipher,
    private readonly clock: Clock,
    private readonly queued: EventQueueSignal,
  ) {}

  /** The workspace's subscriptions. Members (viewers included). */
  async list(p: Principal): Promise<EventSubscription[]> {
    const m = requireMember(p);
    return this.store.repos.eventSubscriptions.listByWorkspace(m.workspaceId);
  }

  /** One subscription of the principal's workspace, or NotFound. Members (viewers included). */
  async get(p: Principal, id: string): Promise<EventSubscription> {
    const m = requireMember(p);
    const s = await this.store.repos.eventSubscriptions.get(id);
    if (!s || s.workspaceId !== m.workspaceId) throw new NotFound('Event subscription', id);
    return s;
  }

  /** Subscribes a URL; the signing secret is returned only here. Admins only. */
  async create(p: Principal, input: unknown): Promise<{ subscription: EventSubscription; secret: string }> {
    const admin = requireAdmin(p);
    const v = parse(createInput, input);
    if (v.agentId) await loadAgent(this.store.repos, p, v.agentId, 'read');
    const existing = await this.store.repos.eventSubscriptions.listByWorkspace(admin.workspaceId);
    if (existing.length >= MAX_SUBSCRIPTIONS)
      throw new Invalid(`A workspace has at most ${MAX_SUBSCRIPTIONS} event subscriptions; delete one first`);
    const secret = newSigningSecret();
    const now = this.clock.now();
    const subscription = await this.store.repos.eventSubscriptions.insert({
      id: newId('evs'),
      workspaceId: admin.workspaceId,
      url: v.url,
      kinds: v.kinds,
      agentId: v.agentId ?? null,
      description: v.description ?? '',
      secretCiphertext: this.cipher.encrypt(secret),
      enabled: true,
      failureStreak: 0,
      disabledAt: null,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
    });
    return { subscription, secret };
  }

  /** Changes a subscription; enabling it again clears its failure streak and why it was disabled. Admins only. */
  async update(p: Principal, id: string, input: unknown): Promise<EventSubscription> {
    requireAdmin(p);
    const s = await this.get(p, id);
    const v = parse(updateInput, input);
    if (v.agentId) await loadAgent(this.store.repos, p, v.agentId, 'read');
    const enabled = v.enabled ?? s.enabled;
    const reenabled = enabled && !s.enabled;
    return this.store.repos.eventSubscriptions.update({
      ...s,
      url: v.url ?? s.url,
      kinds: v.kinds ?? s.kinds,
      agentId: v.agentId === undefined ? s.agentId : v.agentId,
      description: v.description ?? s.description,
      enabled,
      failureStreak: reenabled ? 0 : s.failureStreak,
      disabledAt: enabled ? null : (s.disabledAt ?? this.clock.now()),
      disabledReason: enabled ? null : v.enabled === false ? 'Disabled by an admin' : s.disabledReason,
      updatedAt: this.clock.now(),
    });
  }

  /** Deletes a subscription and its deliveries. Admins only. */
  async delete(p: Principal, id: string): Promise<boolean> {
    requireAdmin(p);
    await this.get(p, id);
    return this.store.repos.eventSubscriptions.delete(id);
  }

  /** A subscription's deliveries, newest first (`after`: a cursor of this list). Members (viewers included). */
  async deliveries(
    p: Principal,
    id: string,
    first: number,
    after?: string,
  ): Promise<{ nodes: EventDelivery[]; endCursor: string | null; hasNextPage: boolean }> {
    await this.get(p, id);
    const n = Math.min(Math.max(Math.trunc(first) || 0, 1), 100);
    const rows = await this.store.repos.eventDeliveries.list(id, {
      first: n + 1,
      after: after ? decodeCursor(after) : undefined,
    });
    const nodes = rows.slice(0, n);
    const last = nodes[nodes.length - 1];
    return { nodes, endCursor: last ? encodeCursor(last) : null, hasNextPage: rows.length > n };
  }

  /** The attempts of deliveries (already checked readable by their listing), oldest first. */
  attempts(deliveryIds: readonly string[]): Promise<EventAttempt[]> {
    return this.store.repos.eventDeliveries.attempts(deliveryIds);
  }

  /** Sends a delivery's event again as a new delivery (same event id and body). Admins only. */
  async replay(p: Principal, deliveryId: string): Promise<EventDelivery> {
    requireAdmin(p);
    const d = await this.store.repos.eventDeliveries.get(deliveryId);
    if (!d || d.workspaceId !== p.workspaceId) throw new NotFound('Event delivery', deliveryId);
    const s = await this.get(p, d.subscriptionId);
    if (!s.enabled) throw new Invalid('The subscription is disabled: enable it before replaying its deliveries');
    const stored = newDelivery(s, d.payload, this.clock.now(), d.id);
    await this.store.repos.eventDeliveries.insertMany([stored]);
    this.queued.onQueued();
    return stored;
  }

  /** Deletes finished event deliveries (and their attempts) created more than `days` ago (housekeeping). */
  prune(days: number): Promise<number> {
    return this.store.repos.eventDeliveries.prune(new Date(this.clock.now().getTime() - days * 86_400_000));
  }

  /** Sends an event of `kind` (default: the subscription's first) with sample data, marked `test`. Admins only. */
  async sendTest(p: Principal, id: string, kind?: unknown): Promise<EventDelivery> {
    requireAdmin(p);
    const s = await this.get(p, id);
    const k = kind === undefined || kind === null ? s.kinds[0]! : parse(z.enum(EVENT_KINDS), kind, 'kind');
    const now = this.clock.now();
    const stored = newDelivery(
      s,
      {
        id: newId('evt'),
        type: k,
        timestamp: now.toISOString(),
        workspaceId: s.workspaceId,
        test: true,
        data: sampleEventData(k, s.agentId, now),
      },
      now,
    );
    await this.store.repos.eventDeliveries.insertMany([stored]);
    this.queued.onQueued();
    return stored;
  }
}
