import type { Knex } from 'knex';
import type { PartitionUpkeep } from '../../domain/activity/activity.ports.js';

// The activity log's daily partitions (migration 20270421000000_activity_partitions, docs/operations.md
// "Activity-log growth"): created ahead, dropped once past retention. Every instance's housekeeping
// calls this; a session advisory lock lets one do it at a time and the others skip that pass. The
// lock is a session lock on one reserved connection (not a transaction's): DETACH … CONCURRENTLY
// cannot run inside a transaction block.

const DAY_MS = 86_400_000;
/** The advisory lock key of partition upkeep ('aes-part' folded to 32 bits). */
const UPKEEP_LOCK_KEY = 0x61657370;

interface Partition {
  name: string;
  /** Null: MINVALUE (the first partition, the table as it was before partitioning). */
  lower: Date | null;
  upper: Date;
  detachPending: boolean;
}

/** `activity_log_p20270421`: the partition of the UTC day starting at `day`. */
export function partitionName(day: Date): string {
  return `activity_log_p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/** The partitions of the log with their bounds (empty when the log is one table). */
async function partitions(db: Knex, conn: unknown): Promise<Partition[]> {
  const r = await db
    .raw(
      `select c.relname as name, i.inhdetachpending as pending,
              (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz as lower,
              (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz as upper
         from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = to_regclass('activity_log') order by upper`,
    )
    .connection(conn);
  return (r.rows as { name: string; pending: boolean; lower: Date | null; upper: Date }[]).map((p) => ({
    name: p.name,
    lower: p.lower ? new Date(p.lower) : null,
    upper: new Date(p.upper),
    detachPending: p.pending,
  }));
}

async function isPartitioned(db: Knex, conn: unknown): Promise<boolean> {
  const r = await db.raw(`select relkind from pg_class where oid = to_regclass('activity_log')`).connection(conn);
  return r.rows[0]?.relkind === 'p';
}

async function createDay(db: Knex, conn: unknown, day: Date): Promise<string> {
  const name = partitionName(day);
  // DDL takes no parameters: the bounds are written out (ISO timestamps made here from a Date).
  const [from, to] = [day, new Date(day.getTime() + DAY_MS)].map((d) => `'${d.toISOString()}'`);
  await db
    .raw(`create table if not exists ?? partition of activity_log for values from (${from}) to (${to})`, [name])
    .connection(conn);
  // Insert-only partitions: vacuum sets their visibility map (index-only counts) early. PostgreSQL
  // refuses this setting on the parent, so each partition gets it.
  await db.raw(`alter table ?? set (autovacuum_vacuum_insert_scale_factor = 0.02)`, [name]).connection(conn);
  return name;
}

/**
 * Detaches and drops a partition. On PostgreSQL CONCURRENTLY: the plain DETACH locks the parent,
 * so it would wait behind running lists and block every insert while it waits. A detach an earlier
 * pass left half done (the instance died) is finished with FINALIZE. PGlite serves one connection,
 * so nothing runs beside it: there the plain DETACH and DROP, in one transaction.
 */
async function dropPartition(db: Knex, conn: unknown, p: Partition, pg: boolean): Promise<void> {
  if (!pg) {
    await db.raw('begin').connection(conn);
    try {
      await db.raw('alter table activity_log detach partition ??', [p.name]).connection(conn);
      await db.raw('drop table ??', [p.name]).connection(conn);
      await db.raw('commit').connection(conn);
    } catch (err) {
      await db.raw('rollback').connection(conn);
      throw err;
    }
    return;
  }
  const how = p.detachPending ? 'finalize' : 'concurrently';
  await db.raw(`alter table activity_log detach partition ?? ${how}`, [p.name]).connection(conn);
  await db.raw('drop table ??', [p.name]).connection(conn);
}

/**
 * Creates the partitions of the UTC days from `now`'s to `aheadDays` after it that no partition
 * covers, and drops the partitions lying wholly before `dropBefore`. Null when the log is not
 * partitioned, or when another instance holds the upkeep lock (it is doing the same work).
 */
export async function maintainActivityPartitions(
  db: Knex,
  now: Date,
  aheadDays: number,
  dropBefore: Date,
): Promise<PartitionUpkeep | null> {
  const pg = db.client.config.client === 'pg';
  const conn = await db.client.acquireConnection();
  try {
    if (!(await isPartitioned(db, conn))) return null;
    const locked = (await db.raw('select pg_try_advisory_lock(?) as ok', [UPKEEP_LOCK_KEY]).connection(conn)).rows[0]
      .ok as boolean;
    if (!locked) return null;
    try {
      const created: string[] = [];
      const dropped: string[] = [];
      let parts = await partitions(db, conn);
      const before = coveredUntil(parts, now);
      const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
      for (let d = 0; d <= aheadDays; d++) {
        const day = new Date(today + d * DAY_MS);
        const covered = parts.some(
          (p) => !p.detachPending && (p.lower === null || p.lower <= day) && day.getTime() < p.upper.getTime(),
        );
        if (!covered) created.push(await createDay(db, conn, day));
      }
      if (created.length) parts = await partitions(db, conn);
      for (const p of parts)
        if (p.upper.getTime() <= dropBefore.getTime()) {
          await dropPartition(db, conn, p, pg);
          dropped.push(p.name);
        }
      return { created, dropped, coveredUntil: before };
    } finally {
      await db.raw('select pg_advisory_unlock(?)', [UPKEEP_LOCK_KEY]).connection(conn);
    }
  } finally {
    await db.client.releaseConnection(conn);
  }
}

/** The end of the partitions that follow one another without a gap from `now` on (null: none covers now). */
function coveredUntil(parts: Partition[], now: Date): Date | null {
  let until: Date | null = null;
  let at = now.getTime();
  for (;;) {
    const next = parts.find(
      (p) => !p.detachPending && (p.lower === null || p.lower.getTime() <= at) && at < p.upper.getTime(),
    );
    if (!next) return until;
    until = next.upper;
    at = next.upper.getTime();
  }
}
