import type { Knex } from 'knex';
import { migrationSource } from '../../migrations/index.js';

const options = { migrationSource, tableName: 'knex_migrations' } as const;

/** The advisory lock key that serialises migrations between instances ('aes-migrate' as a 32-bit number). */
const MIGRATION_LOCK_KEY = 0x6165736d;
/** How often an instance waiting for another's migrations asks for the lock again. */
const LOCK_POLL_MS = 250;

/**
 * Brings the schema to the newest migration. On PostgreSQL, instances that start at once take
 * turns: each waits for a session advisory lock before migrating, so the second finds the work
 * done instead of failing on knex's own lock ("Migration table is already locked"). Holding that
 * lock also proves that no live instance is migrating, so a knex lock left set by an instance that
 * died mid-migration is freed first rather than blocking every later start. (The embedded database
 * serves one process: its data-directory lock already keeps a second one out.)
 */
export async function migrateLatest(db: Knex): Promise<void> {
  if (db.client.config.client !== 'pg') {
    await db.migrate.latest(options);
    return;
  }
  // One connection of the pool holds the lock for the whole run; the migrations use others.
  const connection = await db.client.acquireConnection();
  try {
    // Polled rather than waited for: a backend waiting in pg_advisory_lock holds a snapshot, and a
    // migration building an index CONCURRENTLY waits for every older snapshot (the other instance's
    // wait) before it finishes, so the two would wait on each other.
    while (
      !(await db.raw('select pg_try_advisory_lock(?) as ok', [MIGRATION_LOCK_KEY]).connection(connection)).rows[0].ok
    )
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    try {
      if (await db.schema.hasTable(`${options.tableName}_lock`)) await db.migrate.forceFreeMigrationsLock(options);
      await db.migrate.latest(options);
    } finally {
      await db.raw('select pg_advisory_unlock(?)', [MIGRATION_LOCK_KEY]).connection(connection);
    }
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/** Rolls back every migration (tests of down migrations). */
export async function migrateRollbackAll(db: Knex): Promise<void> {
  await db.migrate.rollback(options, true);
}
