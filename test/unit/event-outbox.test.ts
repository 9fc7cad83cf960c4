import { expect } from 'chai';
import type { Store } from '../../src/domain/ports.js';
import type { EventDelivery, EventSubscription } from '../../src/domain/events/event.entities.js';
import { EventOutboxService } from '../../src/domain/events/event-outbox.service.js';
import { cachedStore, ReadCache } from '../../src/infra/store/cached-store.js';

// Emission costs a call no query when its workspace has no subscription (the cached store keeps
// the enabled list until a subscription changes), and one insert when it has some.

const now = new Date('2027-04-25T12:00:00Z');
const sub = (over: Partial<EventSubscription>): EventSubscription => ({
  id: 'evs_1',
  workspaceId: 'ws_1',
  url: 'https://example.com/hook',
  kinds: ['run.completed'],
  agentId: null,
  description: '',
  secretCiphertext: 'x',
  enabled: true,
  failureStreak: 0,
  disabledAt: null,
  disabledReason: null,
  createdAt: now,
  updatedAt: now,
  ...over,
});

describe('Outbound events: emission', () => {
  let reads: number;
  let inserts: EventDelivery[][];
  let nudges: number;
  let subs: EventSubscription[];
  let outbox: EventOutboxService;
  let store: Store;

  beforeEach(() => {
    reads = 0;
    inserts = [];
    nudges = 0;
    subs = [];
    const repos = {
      eventSubscriptions: {
        listEnabled: async (ws: string) => {
          reads++;
          return subs.filter((s) => s.workspaceId === ws && s.enabled);
        },
        insert: async (s: EventSubscription) => (subs.push(s), s),
      },
      eventDeliveries: { insertMany: async (ds: EventDelivery[]) => void inserts.push(ds) },
    };
    const base = { repos, transaction: async () => undefined, ping: async () => true } as unknown as Store;
    const cache = new ReadCache();
    cache.setEnabled(true);
    store = cachedStore(base, cache);
    outbox = new EventOutboxService(store, { now: () => now }, { onQueued: () => nudges++ });
  });

  it('a workspace without subscriptions: one read, then none, and nothing stored', async () => {
    for (let i = 0; i < 5; i++) await outbox.emit('ws_1', 'run.completed', { agentId: 'agt_1', data: {} });
    expect(reads).to.equal(1);
    expect(inserts).to.deep.equal([]);
    expect(nudges).to.equal(0);
  });

  it('a new subscription is seen at once; one insert per event holds a delivery per matching subscription', async () => {
    await outbox.emit('ws_1', 'run.completed', { data: {} });
    await store.repos.eventSubscriptions.insert(sub({ id: 'evs_all' }));
    await store.repos.eventSubscriptions.insert(sub({ id: 'evs_a', agentId: 'agt_a' }));
    await store.repos.eventSubscriptions.insert(sub({ id: 'evs_keys', kinds: ['key.created'] }));
    await outbox.emit('ws_1', 'run.completed', { agentId: 'agt_b', data: { agentId: 'agt_b' } });
    await outbox.emit('ws_1', 'run.completed', { agentId: 'agt_a', data: { agentId: 'agt_a' } });
    expect(inserts.map((ds) => ds.map((d) => d.subscriptionId))).to.deep.equal([['evs_all'], ['evs_all', 'evs_a']]);
    const [d] = inserts[1]!;
    expect(d!.eventId).to.match(/^evt_/).and.equal(d!.payload.id);
    expect(inserts[1]![1]!.eventId).to.equal(d!.eventId);
    expect(d!.payload).to.deep.include({ type: 'run.completed', workspaceId: 'ws_1', timestamp: now.toISOString() });
    expect(d).to.deep.include({ state: 'pending', attempts: 0, nextAttemptAt: now });
    expect(nudges).to.equal(2);
    expect(reads).to.equal(2);
  });

  it('a failure to store is reported, never thrown', async () => {
    const seen: unknown[] = [];
    const failing = new EventOutboxService(
      {
        repos: { eventSubscriptions: { listEnabled: async () => Promise.reject(new Error('db down')) } },
      } as unknown as Store,
      { now: () => now },
      { onQueued: () => {} },
      (err) => seen.push(err),
    );
    await failing.emit('ws_1', 'key.created', { data: {} });
    expect(seen).to.have.length(1);
  });
});
