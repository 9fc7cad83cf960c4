import { PARTITION_MIN_DAYS_AHEAD } from '../domain/activity/activity-log.js';
import type { Services } from '../domain/services.js';
import type { Logger } from './logger.js';
import type { Scheduler } from './scheduler.js';

/** Finished webhook deliveries (done or failed) are kept this long for listing and replay. */
export const FINISHED_DELIVERY_RETENTION_DAYS = 30;

/**
 * Keeps the activity log's daily partitions (created ahead, dropped past the longest retention; also
 * once at start), prunes the activity log past its retention, deletes expired slot leases, old finished
 * deliveries, ended console sessions, stored responses past their 30 days, final A2A tasks past
 * `a2aTaskRetentionDays` (with their contexts' conversations), expired OAuth records and
 * unapproved OAuth clients, messages past their workspace's retention (with their attachments), finished
 * event deliveries and schedule fires past 30 days, and drops the bodies of deliveries past their replay window, now and then.
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
  // The activity log's daily partitions, on their own: a failure here is logged and the rest of
  // the pass still runs. Returns how many partitions were created and dropped.
  const partitions = async (): Promise<{ created: number; dropped: number }> => {
    try {
      const upkeep = await services.activityLog.maintainPartitions();
      if (!upkeep) return { created: 0, dropped: 0 };
      if (upkeep.daysAhead < PARTITION_MIN_DAYS_AHEAD)
        logger.warn(
          { coveredUntil: upkeep.coveredUntil?.toISOString() ?? null, daysAhead: Math.max(0, upkeep.daysAhead) },
          `activity log: fewer than ${PARTITION_MIN_DAYS_AHEAD} days of partitions were left ahead (entries past them are refused); housekeeping had not run`,
        );
      return { created: upkeep.created.length, dropped: upkeep.dropped.length };
    } catch (err) {
      logger.error({ err }, 'activity log partition upkeep failed');
      return { created: 0, dropped: 0 };
    }
  };
  const run = async () => {
    const parts = await partitions();
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
      const events = await services.events.prune(FINISHED_DELIVERY_RETENTION_DAYS);
      const fires = await services.schedules.pruneFires(FINISHED_DELIVERY_RETENTION_DAYS);
      const approvalsExpired = await services.approvals.expireOverdue();
      const counts = {
        partitionsCreated: parts.created,
        partitionsDropped: parts.dropped,
        pruned,
        slots,
        deliveries,
        bodies,
        sessions,
        responses,
        a2aTasks,
        oauth,
        messages,
        events,
        fires,
        approvalsExpired,
      };
      if (Object.values(counts).some(Boolean)) logger.info(counts, 'housekeeping');
    } catch (err) {
      logger.error({ err }, 'housekeeping failed');
    }
  };
  // Partitions at start as well: instances that never live an hour (restarted often) still create them.
  void partitions();
  return scheduler.every(everyMs, run);
}
