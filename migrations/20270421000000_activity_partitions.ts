import type { Knex } from 'knex';

// The activity log at scale (issue 53, docs/operations.md "Activity-log growth"): `activity_log`
// becomes range-partitioned on `created_at`, one partition per UTC day, so that retention drops whole
// days instead of deleting rows. The existing table is not copied: it becomes the first partition,
// `activity_log_legacy`, holding everything before a boundary two days ahead, and housekeeping drops it
// once it lies wholly past retention.
//
// Without downtime for a large table:
// 1. a unique index on (id, created_at) is built CONCURRENTLY (writes go on);
// 2. a CHECK (created_at < boundary) is added NOT VALID and validated (a scan that lets writes go on);
// 3. one short transaction renames the table, makes that index its primary key, creates the parent
//    from the table's own definition (LIKE: every column, whatever earlier migrations added) with the
//    same indexes, foreign keys and checks, and attaches the table: every index matches one of the
//    parent's and the validated check proves the partition's range, so nothing is built or scanned
//    under the exclusive lock;
// 4. the daily partitions from the boundary on are created (housekeeping keeps creating them ahead).
// The migration runs outside a transaction (CONCURRENTLY cannot run in one); each step can be run
// again after a failure. No DEFAULT partition: rows in it would block creating the partition for
// their day, and DETACH … CONCURRENTLY refuses a table that has one.

export const config = { transaction: false };

const LEGACY = 'activity_log_legacy';
const KEY_INDEX = 'activity_log_id_created_at_index';
const RANGE_CHECK = 'activity_log_legacy_range';
const DAY_MS = 86_400_000;
/** Daily partitions the migration creates from the boundary on (housekeeping then keeps 7 ahead). */
const AHEAD = 3;

/** Whether `activity_log` is partitioned already (a step after the attach failed, or run again). */
async function partitioned(knex: Knex): Promise<boolean> {
  const r = await knex.raw(`select relkind from pg_class where oid = to_regclass('activity_log')`);
  return r.rows[0]?.relkind === 'p';
}

/** `activity_log_p20270421`: the partition of the UTC day starting at `day`. */
function partitionName(day: Date): string {
  return `activity_log_p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/** Creates the daily partition starting at `day` unless it exists. */
async function createDayPartition(knex: Knex | Knex.Transaction, day: Date): Promise<void> {
  const name = partitionName(day);
  // DDL takes no parameters: the bounds are written out (ISO timestamps made here, nothing from outside).
  const [from, to] = [day, new Date(day.getTime() + DAY_MS)].map((d) => `'${d.toISOString()}'`);
  await knex.raw(`create table if not exists ?? partition of activity_log for values from (${from}) to (${to})`, [
    name,
  ]);
  // Insert-only partitions: vacuum sets their visibility map (index-only counts) early. PostgreSQL
  // refuses this on the parent, so each partition gets it.
  await knex.raw(`alter table ?? set (autovacuum_vacuum_insert_scale_factor = 0.02)`, [name]);
}

async function buildKeyIndex(knex: Knex): Promise<void> {
  // A failed CONCURRENTLY build leaves an invalid index behind: drop it and build again.
  const r = await knex.raw(
    `select i.indisvalid from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.oid = to_regclass(?)`,
    [KEY_INDEX],
  );
  if (r.rows[0] && !r.rows[0].indisvalid) await knex.raw(`drop index concurrently if exists ??`, [KEY_INDEX]);
  await knex.raw(`create unique index concurrently if not exists ?? on activity_log (id, created_at)`, [KEY_INDEX]);
}

async function addRangeCheck(knex: Knex, boundary: Date): Promise<void> {
  const r = await knex.raw(`select 1 from pg_constraint where conrelid = to_regclass('activity_log') and conname = ?`, [
    RANGE_CHECK,
  ]);
  if (!r.rows.length)
    await knex.raw(
      `alter table activity_log add constraint ?? check (created_at < '${boundary.toISOString()}'::timestamptz) not valid`,
      [RANGE_CHECK],
    );
  await knex.raw(`alter table activity_log validate constraint ??`, [RANGE_CHECK]);
}

/** The boundary the range check holds (it may come from an earlier, interrupted run). */
async function checkBoundary(knex: Knex): Promise<Date> {
  const r = await knex.raw(
    `select (regexp_match(pg_get_constraintdef(oid), '''([^'']+)'''))[1]::timestamptz as b
       from pg_constraint where conrelid = to_regclass('activity_log') and conname = ?`,
    [RANGE_CHECK],
  );
  return new Date(r.rows[0].b);
}

/** Step 3: rename, new primary key, parent from the table's definition, attach. Catalogue work only. */
async function swap(trx: Knex.Transaction, boundary: Date): Promise<void> {
  // Waiting for the lock blocks every later reader and writer of the table: give up soon and try again.
  await trx.raw(`set local lock_timeout = '5s'`);
  await trx.raw('lock table activity_log in access exclusive mode');
  const indexes = (
    await trx.raw(
      `select c.relname as name, pg_get_indexdef(c.oid) as def from pg_index i join pg_class c on c.oid = i.indexrelid
        where i.indrelid = to_regclass('activity_log') and not i.indisprimary and c.relname <> ? order by 1`,
      [KEY_INDEX],
    )
  ).rows as { name: string; def: string }[];
  const constraints = (
    await trx.raw(
      `select conname as name, pg_get_constraintdef(oid) as def from pg_constraint
        where conrelid = to_regclass('activity_log') and contype in ('f', 'c') and conname <> ? order by 1`,
      [RANGE_CHECK],
    )
  ).rows as { name: string; def: string }[];
  await trx.raw(`alter table activity_log rename to ??`, [LEGACY]);
  await trx.raw(`alter table ?? drop constraint activity_log_pkey`, [LEGACY]);
  await trx.raw(`alter table ?? add constraint ?? primary key using index ??`, [LEGACY, `${LEGACY}_pkey`, KEY_INDEX]);
  // The parent takes the index names: the partition's own are renamed out of the way.
  for (const i of indexes) await trx.raw(`alter index ?? rename to ??`, [i.name, legacyName(i.name)]);
  await trx.raw(
    `create table activity_log (like ?? including defaults including storage including comments including compression)
       partition by range (created_at)`,
    [LEGACY],
  );
  await trx.raw('alter table activity_log add constraint activity_log_pkey primary key (id, created_at)');
  // Made while the parent has no partition (instant); the attach then adopts the legacy's matching
  // indexes (and its primary key, foreign keys and checks) instead of building them.
  for (const i of indexes) await trx.raw(i.def);
  for (const c of constraints) await trx.raw(`alter table activity_log add constraint ?? ${c.def}`, [c.name]);
  await trx.raw(
    `alter table activity_log attach partition ?? for values from (minvalue) to ('${boundary.toISOString()}')`,
    [LEGACY],
  );
  await trx.raw(`alter table ?? drop constraint ??`, [LEGACY, RANGE_CHECK]);
}

/** `activity_log_run_id_index` → `activity_log_legacy_run_id_index` (63 characters at most). */
function legacyName(name: string): string {
  return name.replace(/^activity_log_/, `${LEGACY}_`).slice(0, 63);
}

export async function up(knex: Knex): Promise<void> {
  if (!(await partitioned(knex))) {
    const now = Date.now();
    // Two days ahead at least: entries written while the migration runs still fall below it.
    const boundary = new Date(Math.floor(now / DAY_MS) * DAY_MS + 2 * DAY_MS);
    await buildKeyIndex(knex);
    await addRangeCheck(knex, boundary);
    const held = await checkBoundary(knex);
    for (let attempt = 1; ; attempt++) {
      try {
        await knex.transaction((trx) => swap(trx, held));
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== '55P03' || attempt >= 12) throw err;
      }
    }
  }
  const r = await knex.raw(
    `select max((regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz) as upper
       from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = to_regclass('activity_log')`,
  );
  const from = new Date(r.rows[0].upper);
  for (let d = 0; d < AHEAD; d++) await createDayPartition(knex, new Date(from.getTime() + d * DAY_MS));
}

export async function down(knex: Knex): Promise<void> {
  if (!(await partitioned(knex))) return;
  // A plain table again: a copy of every entry (the partitions may hold many days). On a large log
  // this takes as long as the copy; it is here for tests and an early way back.
  await knex.transaction(async (trx) => {
    await trx.raw('lock table activity_log in access exclusive mode');
    const indexes = (
      await trx.raw(
        `select c.relname as name, pg_get_indexdef(c.oid) as def from pg_index i join pg_class c on c.oid = i.indexrelid
          where i.indrelid = to_regclass('activity_log') and not i.indisprimary order by 1`,
      )
    ).rows as { name: string; def: string }[];
    const constraints = (
      await trx.raw(
        `select conname as name, pg_get_constraintdef(oid) as def from pg_constraint
          where conrelid = to_regclass('activity_log') and contype in ('f', 'c') order by 1`,
      )
    ).rows as { name: string; def: string }[];
    await trx.raw(
      `create table activity_log_plain (like activity_log including defaults including storage including comments including compression)`,
    );
    await trx.raw('insert into activity_log_plain select * from activity_log');
    await trx.raw('drop table activity_log');
    await trx.raw('alter table activity_log_plain rename to activity_log');
    await trx.raw('alter table activity_log add constraint activity_log_pkey primary key (id)');
    for (const i of indexes) await trx.raw(i.def.replace(/ ON ONLY /, ' ON '));
    for (const c of constraints) await trx.raw(`alter table activity_log add constraint ?? ${c.def}`, [c.name]);
  });
}
