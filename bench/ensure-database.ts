import { closeDatabase, openDatabase } from '../src/infra/db.js';

/** Creates the database a PostgreSQL URL names when it does not exist yet (through `postgres`). */
export async function ensureDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const db = await openDatabase({ databaseUrl: admin.toString() });
  try {
    const r = await db.raw('select 1 from pg_database where datname = ?', [name]);
    if (r.rows.length === 0) await db.raw(`create database "${name.replace(/"/g, '""')}"`);
  } finally {
    await closeDatabase(db);
  }
}
