import type { RunEvents } from './run-events.ports.js';
import type { EventOutbox } from './event.ports.js';

const bounded = (s: string | null | undefined, max: number) => (s ?? '').slice(0, max);

/** How often one instance tells of the same limit of the same agent at most. */
export const LIMIT_EVENT_EVERY_MS = 60_000;
/** Past this many (agent, limit) pairs remembered, the memory starts again (a bound, not a cache). */
const MAX_LIMITS_REMEMBERED = 10_000;

/**
 * The outbound events of the call lifecycle: `run.completed` / `run.failed` when a run ends,
 * `limit.reached` when a limit refuses one. Each emission is started and left: it costs the call
 * no wait (and no query when the workspace has no subscription). A limit that stays reached refuses
 * every call until it resets — thousands a second: it is told once a minute per agent and limit on
 * each instance, not once per refused call.
 */
export function runEventsOf(outbox: EventOutbox, now: () => number = Date.now): RunEvents {
  const toldAt = new Map<string, number>();
  const due = (key: string): boolean => {
    const t = now();
    const last = toldAt.get(key);
    if (last !== undefined && t - last < LIMIT_EVENT_EVERY_MS) return false;
    if (toldAt.size >= MAX_LIMITS_REMEMBERED) toldAt.clear();
    toldAt.set(key, t);
    return true;
  };
  return {
    ended(agent, input, facts) {
      const data: Record<string, unknown> = {
        agentId: agent.id,
        runId: facts.runId,
        surface: input.surface,
        entry: bounded(facts.entry, 1000),
        durationMs: Math.max(0, Math.round(facts.durationMs)),
        credits: Math.max(0, facts.credits),
      };
      if (facts.outcome === 'ok') void outbox.emit(agent.workspaceId, 'run.completed', { agentId: agent.id, data });
      else
        void outbox.emit(agent.workspaceId, 'run.failed', {
          agentId: agent.id,
          data: { ...data, error: bounded(facts.error ?? 'The run failed', 2000) },
        });
    },
    limited(agent, input, refusal) {
      if (!due(`${agent.id}\u0000${refusal.reason}`)) return;
      void outbox.emit(agent.workspaceId, 'limit.reached', {
        agentId: agent.id,
        data: {
          agentId: agent.id,
          reason: refusal.reason,
          retryAfterSeconds: Math.max(0, Math.ceil(refusal.retryAfterSeconds)),
          message: bounded(refusal.message, 2000),
          surface: input.surface,
        },
      });
    },
  };
}

/** `key.created` / `key.revoked` of a key (never its secret: its prefix only). */
export function keyEvent(
  outbox: EventOutbox,
  kind: 'key.created' | 'key.revoked',
  // The key's fields events name (structural: the keys' folder depends on this one, not the reverse).
  key: {
    id: string;
    workspaceId: string;
    agentId: string | null;
    kind: string;
    name: string;
    prefix: string;
    origin: string;
  },
): void {
  const data: Record<string, unknown> = { keyId: key.id, kind: key.kind, agentId: key.agentId, name: key.name };
  if (kind === 'key.created') Object.assign(data, { prefix: key.prefix, origin: key.origin });
  void outbox.emit(key.workspaceId, kind, { agentId: key.agentId, data });
}

/** `message.received` of a stored inbound email or SMS (its sender and subject, never its body). */
export function messageEvent(
  outbox: EventOutbox,
  m: {
    id: string;
    workspaceId: string;
    agentId: string;
    channelId: string | null;
    channel: string;
    from: string;
    subject: string | null;
  },
): void {
  void outbox.emit(m.workspaceId, 'message.received', {
    agentId: m.agentId,
    data: {
      agentId: m.agentId,
      messageId: m.id,
      channelId: m.channelId,
      channel: m.channel,
      from: bounded(m.from, 1000),
      subject: m.subject === null ? null : bounded(m.subject, 1000),
    },
  });
}

/**
 * `webhook.delivery.failed` of an inbound webhook delivery that failed its last attempt (the
 * webhook queue settled it FAILED): its agent's workspace is read (cached), then the event emitted.
 */
export async function webhookFailedEvent(
  outbox: EventOutbox,
  agents: { get(id: string): Promise<{ workspaceId: string } | null> },
  d: { id: string; agentId: string; webhookId: string; attempts: number },
  error: string | null,
): Promise<void> {
  const agent = await agents.get(d.agentId).catch(() => null);
  if (!agent) return;
  await outbox.emit(agent.workspaceId, 'webhook.delivery.failed', {
    agentId: d.agentId,
    data: {
      source: 'webhook',
      deliveryId: d.id,
      agentId: d.agentId,
      webhookId: d.webhookId,
      attempts: d.attempts,
      error: error === null ? null : bounded(error, 2000),
    },
  });
}
