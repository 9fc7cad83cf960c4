import type { Json } from '../json.js';
import type { Message, MessageStatus } from '../messages/message.entities.js';
import type { MessageSettlement } from '../messages/message.ports.js';
import type { AttemptOutcome } from '../webhooks/webhook.entities.js';

/**
 * How one attempt on a channel's message ended, as its task reports it; the queue settles the
 * message from it (the webhook deliveries' outcomes, with what a message needs besides):
 * - `done`: the message reached `status`; an inbound one may come with its `reply` (an outbound
 *   message, stored in the same transaction as the settling, so an answer is never lost or doubled);
 * - `retry`: on the retry schedule (`retryDelay`: the webhook one, by default), failing for good at its end;
 * - `deferred`: a limit held the answer back; tried again later, no failure counted;
 * - `failed`: nothing another attempt could change.
 */
export type ChannelOutcome =
  | { kind: 'done'; status: MessageStatus; runId: string | null; reply?: Message; provider?: Json; messageId?: string }
  | { kind: 'retry'; error: string; runId: string | null; provider?: Json }
  | { kind: 'deferred'; error: string; retryAfterSeconds: number; refusal?: Refusal }
  | { kind: 'failed'; error: string; runId: string | null; provider?: Json; refusal?: Refusal };

/** The domain's refusal of a run (its error code, a limit's reason): kept as `provider.refusal`, as a surface would answer it. */
export interface Refusal {
  code: string;
  reason?: string;
}

/** The provider details with the refusal that ended (or held back) the attempt. */
function withRefusal(provider: Json | null, refusal: Refusal): Json {
  const base = provider && typeof provider === 'object' && !Array.isArray(provider) ? provider : {};
  return {
    ...base,
    refusal: { code: refusal.code, ...(refusal.reason !== undefined ? { reason: refusal.reason } : {}) },
  };
}

/**
 * What an attempt's outcome leaves on its message at `now`. A deferral waits the refusal's
 * Retry-After but at most `deferMaxMs`: a daily limit says "tomorrow", yet a member may lift it
 * any time, and the answer should then go out soon.
 */
export function messageSettlementOf(
  m: Message,
  o: ChannelOutcome,
  now: Date,
  retryDelay: (failures: number) => number | null,
  deferMaxMs: number,
): { outcome: Exclude<AttemptOutcome, 'lost'>; settlement: MessageSettlement } {
  const waiting: MessageStatus = m.direction === 'inbound' ? 'received' : 'queued';
  const provider = 'provider' in o && o.provider !== undefined ? { provider: o.provider } : {};
  switch (o.kind) {
    case 'done': {
      const messageId = o.messageId !== undefined ? { messageId: o.messageId } : {};
      return {
        outcome: 'done',
        settlement: {
          status: o.status,
          failures: m.failures,
          nextAttemptAt: null,
          lastError: null,
          runId: o.runId ?? m.runId,
          ...provider,
          ...messageId,
        },
      };
    }
    case 'deferred': {
      const next = new Date(now.getTime() + Math.min(o.retryAfterSeconds * 1000, deferMaxMs));
      const refusal = o.refusal ? { provider: withRefusal(m.provider, o.refusal) } : {};
      return {
        outcome: 'deferred',
        settlement: {
          status: 'deferred',
          failures: m.failures,
          nextAttemptAt: next,
          lastError: o.error,
          runId: m.runId,
          ...refusal,
        },
      };
    }
    case 'retry': {
      const failures = m.failures + 1;
      const delay = retryDelay(failures);
      const runId = o.runId ?? m.runId;
      if (delay === null)
        return {
          outcome: 'failed',
          settlement: { status: 'failed', failures, nextAttemptAt: null, lastError: o.error, runId, ...provider },
        };
      return {
        outcome: 'retry',
        settlement: {
          status: waiting,
          failures,
          nextAttemptAt: new Date(now.getTime() + delay),
          lastError: o.error,
          runId,
          ...provider,
        },
      };
    }
    case 'failed': {
      const details = o.refusal ? { provider: withRefusal(o.provider ?? m.provider, o.refusal) } : provider;
      return {
        outcome: 'failed',
        settlement: {
          status: 'failed',
          failures: m.failures + 1,
          nextAttemptAt: null,
          lastError: o.error,
          runId: o.runId ?? m.runId,
          ...details,
        },
      };
    }
  }
}
