import type { Logger } from 'pino';
import { listenChannel, type Db } from '../db.js';
import { CHANGE_CHANNEL, NOTIFIED_TABLES } from '../../../migrations/20261230000000_change_notifications.js';
import type { Change, ReadCache } from './cached-store.js';

// Event subscriptions announce their changes through the same trigger (migration 20270425000000).
const TABLES = new Set<string>([...NOTIFIED_TABLES, 'event_subscriptions']);

/**
 * Feeds the database's change notifications (every instance's committed writes to cached rows)
 * into the read cache. While the listener is down the cache is off, so no change can be missed:
 * reads go to the database until LISTEN holds again, and the cache then starts empty.
 */
export async function listenForChanges(db: Db, cache: ReadCache, logger: Logger): Promise<() => Promise<void>> {
  return listenChannel(db, CHANGE_CHANNEL, {
    message: (payload) => {
      const c = parse(payload);
      if (c) cache.invalidate(c);
      else cache.clear();
    },
    connected: (up) => {
      if (!up)
        logger.warn(
          'change notifications lost: cached agents, keys and entries are read from the database until they are back',
        );
      cache.setEnabled(up);
    },
  });
}

function parse(payload: string): Change | null {
  try {
    const v = JSON.parse(payload) as { table?: unknown; id?: unknown; agentId?: unknown };
    if (typeof v.table !== 'string' || !TABLES.has(v.table) || typeof v.id !== 'string') return null;
    return { table: v.table as Change['table'], id: v.id, agentId: typeof v.agentId === 'string' ? v.agentId : null };
  } catch {
    return null;
  }
}
