import type { Logger } from 'pino';
import type { CallCancel, CancelChannel } from '../../domain/calls/call-cancel.ports.js';
import { SURFACES, type Surface } from '../../domain/core/surface.entities.js';
import { localCancelChannel } from '../../domain/calls/call-cancels.js';
import { isEmbedded, listenChannel, notifyChannel, type Db } from '../db.js';

/**
 * The NOTIFY channel of call cancels, every surface's (apart from the change notifications: other
 * listeners, other payloads).
 */
export const CANCEL_CHANNEL = 'aes_call_cancels';
/** JSON-RPC ids are chosen by clients: one whose JSON is longer than this is not announced (or believed). */
export const MAX_REQUEST_ID_JSON = 200;
/** Agent ids and caller identities are short; anything longer on the channel is not ours. */
const MAX_PAYLOAD = 1_000;

/**
 * The cancel channel on the database's LISTEN/NOTIFY: one listening connection per instance (a service on
 * the embedded database uses `localCancelChannel` instead: it is the database's only process). A cancel sent while an instance's listener is being
 * opened again is lost for that instance; its call then runs to its end, as if the cancel had come
 * too late. `close` stops listening.
 */
export async function openCancelChannel(db: Db, logger: Logger): Promise<CancelChannel & { close(): Promise<void> }> {
  // The embedded database has this one process: its cancels never need the database.
  if (isEmbedded(db)) return { ...localCancelChannel(), close: async () => {} };
  const handlers = new Set<(cancel: CallCancel) => void>();
  const stop = await listenChannel(db, CANCEL_CHANNEL, {
    message: (payload) => {
      const cancel = parseCancel(payload);
      if (cancel) for (const h of handlers) h(cancel);
    },
    connected: (up) => {
      if (!up) logger.warn('Call cancels from other instances are not received until the database connection is back');
    },
  });
  return {
    async publish(cancel) {
      const payload = formatCancel(cancel);
      if (payload) await notifyChannel(db, CANCEL_CHANNEL, payload);
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
    close: stop,
  };
}

/** The payload of a cancel, or null when its id is too long to announce. */
export function formatCancel(c: CallCancel): string | null {
  if (JSON.stringify(c.requestId).length > MAX_REQUEST_ID_JSON) return null;
  const payload = JSON.stringify({ s: c.surface, a: c.agentId, c: c.caller, i: c.requestId });
  return payload.length > MAX_PAYLOAD ? null : payload;
}

/** A cancel read back from the channel, or null for anything that is not one (only ever matched, never used otherwise). */
export function parseCancel(payload: string): CallCancel | null {
  if (payload.length > MAX_PAYLOAD) return null;
  try {
    const v = JSON.parse(payload) as { s?: unknown; a?: unknown; c?: unknown; i?: unknown };
    if (typeof v.s !== 'string' || !(SURFACES as readonly string[]).includes(v.s)) return null;
    if (typeof v.a !== 'string' || typeof v.c !== 'string') return null;
    if (typeof v.i !== 'string' && typeof v.i !== 'number') return null;
    if (JSON.stringify(v.i).length > MAX_REQUEST_ID_JSON) return null;
    return { surface: v.s as Surface, agentId: v.a, caller: v.c, requestId: v.i };
  } catch {
    return null;
  }
}
