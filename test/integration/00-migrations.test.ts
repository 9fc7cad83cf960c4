import { expect } from 'chai';
import type { Knex } from 'knex';
import { closeDatabase, openDatabase } from '../../src/infra/db.js';
import { migrateLatest, migrateRollbackAll } from '../../src/infra/migrate.js';

// Runs the migrations up → down → up on a database of its own (a separate PGlite instance, or a
// separate schema of the test PostgreSQL), so the shared test database is not disturbed.

const TABLES = [
  'workspaces', 'teams', 'members', 'member_tokens', 'agents', 'api_keys', 'http_endpoints', 'mcp_tools', 'webhooks',
  'documents', 'document_records', 'document_exposures', 'secrets', 'models', 'activity_log', 'messages',
  'conversations', 'chat_turns', 'credit_usage', 'run_slots', 'webhook_deliveries',
];

async function tables(db: Knex): Promise<string[]> {
  const r = await db.raw(`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`);
  return (r.rows as { table_name: string }[]).map((x) => x.table_name).filter((t) => !t.startsWith('knex_'));
}

describe('migrations', function () {
  this.timeout(60_000);
  let db: Knex;
  const schema = 'migration_check';

  before(async () => {
    const url = process.env.TEST_DATABASE_URL || undefined;
    if (url) {
      const admin = await openDatabase({ databaseUrl: url });
      await admin.raw(`drop schema if exists ${schema} cascade`);
      await admin.raw(`create schema ${schema}`);
      await closeDatabase(admin);
    }
    db = await openDatabase({ databaseUrl: url, dataDir: 'memory', searchPath: url ? schema : undefined });
  });
  after(async () => {
    if (process.env.TEST_DATABASE_URL) await db.raw(`drop schema if exists ${schema} cascade`);
    await closeDatabase(db);
  });

  it('create every table of the data model, roll back to nothing, and apply again', async () => {
    await migrateLatest(db);
    expect(await tables(db)).to.have.members(TABLES);

    await migrateRollbackAll(db);
    expect(await tables(db)).to.deep.equal([]);

    await migrateLatest(db);
    expect(await tables(db)).to.have.members(TABLES);
  });

  it('index database records with GIN for containment filters', async () => {
    const r = await db.raw(`select indexdef from pg_indexes where schemaname = current_schema() and tablename = 'document_records'`);
    const defs = (r.rows as { indexdef: string }[]).map((x) => x.indexdef).join('\n');
    expect(defs).to.match(/USING gin \(data jsonb_path_ops\)/);
  });

  it('are idempotent: a second latest changes nothing', async () => {
    const before = await db('knex_migrations').count<{ count: number }[]>('* as count');
    await migrateLatest(db);
    const after = await db('knex_migrations').count<{ count: number }[]>('* as count');
    expect(Number(after[0]!.count)).to.equal(Number(before[0]!.count));
  });
});
