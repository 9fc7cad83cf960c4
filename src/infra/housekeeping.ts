import type { Services } from '../domain/services.js';
import type { Logger } from './logger.js';
import type { Scheduler } from './scheduler.js';

/** Finished webhook deliveries (done or failed) are kept this long for listing and replay. */
export const FINISHED_DELIVERY_RETENTION_DAYS = 30;

/**
 * Prunes the activity log past its retention, deletes expired slot leases, old finished
 * deliveries, ended console sessions, stored responses past their 30 days, final A2A tasks past
 * `a2aTaskRetentionDays` (with their contexts' conversations), expired OAuth records and
 * unapproved OAuth clients, messages past their workspace's retention (with their attachments),
 * and drops the bodies of deliveries past their replay window, now and then.
 */
export function startHousekeeping(
  services: Services,
  pruneOAuth: () => Promise<number>,
  logger: Logger,
  scheduler: Scheduler,
  everyMs: number,
  bodyRetentionDays: number,
  a2aTaskRetentionDays: number,
): { stop(): void } | undefined {
  if (everyMs <= 0) return undefined;
  const run = async () => {
    try {
      const pruned = await services.activityLog.prune();
      const slots = await services.admission.purgeExpiredLeases();
      const deliveries = await services.deliveries.prune(FINISHED_DELIVERY_RETENTION_DAYS);
      const bodies = await services.deliveries.dropBodies(bodyRetentionDays);
      const sessions = await services.consoleSessions.prune();
      const responses = await services.openai.pruneResponses();
      const a2aTasks = await services.a2a.pruneTasks(a2aTaskRetentionDays);
      const oauth = await pruneOAuth();
      const messages = await services.messages.prune();
      const counts = { pruned, slots, deliveries, bodies, sessions, responses, a2aTasks, oauth, messages };
      if (Object.values(counts).some(Boolean)) logger.info(counts, 'housekeeping');
    } catch (err) {
      logger.error({ err }, 'housekeeping failed');
    }
  };
  return scheduler.every(everyMs, run);
}
