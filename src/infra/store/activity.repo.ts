import type { Knex } from 'knex';
import type { ActivityEntry } from '../../domain/activity/activity.entities.js';
import type { ActivityListOptions, ActivityRepo } from '../../domain/activity/activity.ports.js';
import { insertActivityBatch } from './activity-batch.js';
import { maintainActivityPartitions } from './activity-partitions.js';
import { q } from './pg-errors.js';
import * as rows from './rows/index.js';

type Conn = Knex | Knex.Transaction;

/** Rows a write changed: a number from pg, a result object from knex-pglite; 0 when neither says. */
function affectedRows(result: unknown): number {
  if (typeof result === 'number') return result;
  const r = result as { rowCount?: unknown; affectedRows?: unknown } | null;
  const n = Number(r?.rowCount ?? r?.affectedRows);
  return Number.isFinite(n) ? n : 0;
}

/** Activity entries deleted per statement by the retention prune. */
const PRUNE_BATCH = 5000;
/** An activity page without its headers, bodies and logs (the large columns). */
const ACTIVITY_LIGHT_COLUMNS = [
  'id',
  'workspace_id',
  'agent_id',
  'kind',
  'surface',
  'entry',
  'method',
  'path',
  'status',
  'truncated',
  'credits',
  'duration_ms',
  'key_id',
  'oauth_client_id',
  'granted_by',
  'run_id',
  'request_id',
  'error',
  'created_at',
  'protocol',
  'delivery_id',
  'trace_id',
];

/** The filters of an activity page on the table's alias `t` (the page itself, or a receipt it folds a run into). */
function filtered(query: Knex.QueryBuilder, opts: ActivityListOptions, t: string): Knex.QueryBuilder {
  if (!opts.includeProtocol) query.andWhere(`${t}.protocol`, false);
  if (opts.surface) query.andWhere(`${t}.surface`, opts.surface);
  if (opts.entry !== undefined) query.andWhere(`${t}.entry`, opts.entry);
  if (opts.status === 'error') query.whereNotNull(`${t}.error`);
  else if (opts.status)
    query.andWhere(`${t}.status`, '>=', opts.status.min).andWhere(`${t}.status`, '<=', opts.status.max);
  if (opts.since) query.andWhere(`${t}.created_at`, '>=', opts.since);
  if (opts.until) query.andWhere(`${t}.created_at`, '<', opts.until);
  return query;
}

/**
 * An entry dated where no partition of the log is (housekeeping creates them ahead) is refused with
 * SQLSTATE 23514, which would otherwise read as "a value is outside the allowed set": the sink's
 * error line says what it is (code NO_PARTITION). Other errors go on to be translated as before.
 */
function noPartition(err: unknown): never {
  const e = err as { code?: string; message?: string };
  if (e?.code === '23514' && /no partition/.test(e.message ?? ''))
    throw Object.assign(
      new Error(`no partition of the activity log holds the entry's day (SQLSTATE 23514: ${e.message})`),
      {
        code: 'NO_PARTITION',
      },
    );
  throw err;
}

/** The activity log's repository: the entries, their retention prune and the agent's run counts. */
export function activityRepo(db: Conn): ActivityRepo {
  return {
    insert: (entry: ActivityEntry) => q(async () => void (await db('activity_log').insert(rows.activity.toRow(entry)))),
    insertMany: (entries) => q(() => insertActivityBatch(db, entries).catch(noPartition)),
    // In batches, each its own statement: a month of a busy workspace (millions of rows) is
    // neither one long transaction nor a list of every deleted id in memory (docs/operations.md,
    // "Activity-log growth").
    prune: (workspaceId, before, batch = PRUNE_BATCH) =>
      q(async () => {
        let total = 0;
        for (;;) {
          const due = db('activity_log')
            .select('id', 'created_at')
            .where({ workspace_id: workspaceId })
            .andWhere('created_at', '<', before)
            .limit(batch);
          // By the whole key (id, created_at), and within the range again: on the partitioned log
          // both sides then reach only the partitions before `before`.
          const deleted = affectedRows(
            await db('activity_log').whereIn(['id', 'created_at'], due).andWhere('created_at', '<', before).delete(),
          );
          total += deleted;
          if (deleted < batch) return total;
        }
      }),
    // The pool itself, never a transaction: upkeep reserves a connection of its own for its lock.
    maintainPartitions: (now, aheadDays, dropBefore) =>
      q(() => maintainActivityPartitions(db as Knex, now, aheadDays, dropBefore)),
    findRuns: (runIds) =>
      q(async () =>
        runIds.length
          ? (await db('activity_log').whereIn('run_id', runIds).andWhere({ kind: 'run' })).map(rows.activity.fromRow)
          : [],
      ),
    findByRunId: (runId) =>
      q(async () =>
        (await db('activity_log').where('run_id', runId).orderBy('created_at', 'desc').limit(10)).map(
          rows.activity.fromRow,
        ),
      ),
    list: (agentId, opts) =>
      q(async () => {
        const query = filtered(db('activity_log').where({ agent_id: agentId }), opts, 'activity_log');
        if (opts.withBodies === false) query.select(ACTIVITY_LIGHT_COLUMNS);
        // A delivery's runs fold into its receipt when the receipt is on the same list; a run whose
        // receipt is not (another filter, or a receipt entry lost with its instance) stays listed.
        if (opts.foldDeliveryRuns)
          query.whereNot((w) =>
            w
              .where('activity_log.kind', 'run')
              .whereNotNull('activity_log.delivery_id')
              .whereExists(
                filtered(
                  db('activity_log as receipt')
                    .select(db.raw('1'))
                    .where('receipt.kind', 'request')
                    .whereRaw('receipt.delivery_id = activity_log.delivery_id')
                    .whereRaw('receipt.agent_id = activity_log.agent_id'),
                  opts,
                  'receipt',
                ),
              ),
          );
        if (opts.after) {
          const { createdAt, id } = opts.after;
          query.andWhere((w) =>
            w
              .where('created_at', '<', createdAt)
              .orWhere((w2) => w2.where('created_at', '=', createdAt).andWhere('id', '<', id)),
          );
        }
        const rs = await query
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(opts.first);
        return rs.map(rows.activity.fromRow);
      }),
    latestDeliveryRuns: (agentId, deliveryIds, withBodies) =>
      q(async () => {
        if (!deliveryIds.length) return [];
        const query = db('activity_log')
          .distinctOn('delivery_id')
          .where({ agent_id: agentId, kind: 'run' })
          .whereIn('delivery_id', deliveryIds as string[])
          .orderBy([
            { column: 'delivery_id' },
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ]);
        if (!withBodies) query.select(ACTIVITY_LIGHT_COLUMNS);
        return (await query).map(rows.activity.fromRow);
      }),
    find: (agentId, id) =>
      q(async () => {
        const r = await db('activity_log').where({ agent_id: agentId, id }).first();
        return r ? rows.activity.fromRow(r) : null;
      }),
    runsBySurface: (agentId, since) =>
      q(async () => {
        // Ranges over (agent_id, created_at, id); a run's request entry and run entry are never both written, distinct guards anyway.
        const rs = await db('activity_log')
          .select(
            db.raw(
              `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, surface, count(distinct run_id) as runs, sum(credits) as credits`,
            ),
          )
          .where({ agent_id: agentId })
          .andWhere('created_at', '>=', since)
          .whereNotNull('run_id')
          .groupByRaw('1, 2')
          .orderByRaw('1 desc, 2');
        return rs.map((r: any) => ({
          day: r.day,
          surface: r.surface,
          runs: Number(r.runs),
          credits: Number(r.credits),
        }));
      }),
  };
}
