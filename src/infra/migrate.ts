import type { Knex } from 'knex';
import { migrationSource } from '../../migrations/index.js';

const options = { migrationSource, tableName: 'knex_migrations' } as const;

/** Brings the schema to the newest migration. */
export async function migrateLatest(db: Knex): Promise<void> {
  await db.migrate.latest(options);
}

/** Rolls back every migration (tests of down migrations). */
export async function migrateRollbackAll(db: Knex): Promise<void> {
  await db.migrate.rollback(options, true);
}
