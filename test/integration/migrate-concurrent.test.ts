import { expect } from 'chai';
import { closeDatabase, openDatabase, type Db } from '../../src/infra/db.js';
import { migrateLatest } from '../../src/infra/migrate.js';
import { h } from '../helpers/harness.js';

// Upgrades with several instances (docs/operations.md, "Upgrading"): instances that start at once
// on one PostgreSQL take turns migrating, and a migration lock left behind by an instance that died
// mid-migration does not block later starts.

describe('migrations when several instances start at once (PostgreSQL)', function () {
  this.timeout(120_000);
  const name = `aes_migrate_${process.pid}_${Date.now()}`;
  let admin: Db;
  const url = () => {
    const u = new URL(process.env.TEST_DATABASE_URL!);
    u.pathname = `/${name}`;
    return u.toString();
  };

  before(async function () {
    if (!h().onPostgres) {
      console.log('      (skipped: needs TEST_DATABASE_URL — the embedded database serves one process)');
      this.skip();
    }
    const u = new URL(process.env.TEST_DATABASE_URL!);
    u.pathname = '/postgres';
    admin = await openDatabase({ databaseUrl: u.toString() });
    await admin.raw(`create database "${name}"`);
  });

  after(async () => {
    if (!admin) return;
    await admin.raw(`drop database if exists "${name}" with (force)`);
    await closeDatabase(admin);
  });

  it('four instances migrating a fresh database at once all start, and every migration ran once', async () => {
    const instances = await Promise.all(Array.from({ length: 4 }, () => openDatabase({ databaseUrl: url() })));
    try {
      const results = await Promise.allSettled(instances.map((db) => migrateLatest(db)));
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).to.deep.equal([
        'ok',
        'ok',
        'ok',
        'ok',
      ]);
      const ran = (await instances[0]!('knex_migrations').select('name')) as { name: string }[];
      const names = ran.map((r) => r.name);
      expect(new Set(names).size, 'each migration recorded once').to.equal(names.length);
      expect(names).to.include('20261122000000_initial');
    } finally {
      await Promise.all(instances.map((db) => closeDatabase(db)));
    }
  });

  it('a knex migration lock left set by an instance that died is freed by the next start', async () => {
    const db = await openDatabase({ databaseUrl: url() });
    try {
      await db('knex_migrations_lock').update({ is_locked: 1 });
      await migrateLatest(db);
      expect(((await db('knex_migrations_lock').first()) as { is_locked: number }).is_locked).to.equal(0);
    } finally {
      await closeDatabase(db);
    }
  });
});
