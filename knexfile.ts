import type { Knex } from 'knex';
import { migrationSource } from './migrations/index.js';

// Used by the knex CLI against PostgreSQL (`DATABASE_URL`). The service itself migrates on start,
// on PostgreSQL or the embedded database, through src/infra/migrate.ts with the same source.
const config: Knex.Config = {
  client: 'pg',
  connection: process.env.DATABASE_URL,
  migrations: { migrationSource, tableName: 'knex_migrations' },
};

export default config;
