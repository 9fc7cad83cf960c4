import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import ClientPgLite from 'knex-pglite';
import { PGlite } from '@electric-sql/pglite';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';

export type Db = Knex;

// knex-pglite leaves a passed-in PGlite instance open; closeDatabase closes it with the pool.
const embedded = new WeakMap<Knex, { pglite: PGlite; lock: DataDirLock | null }>();

// int8 (counts, sums) and numeric (credits, prices) come back as JavaScript numbers on both
// drivers; every value we store in them fits a double.
const INT8 = 20;
const NUMERIC = 1700;
pg.types.setTypeParser(INT8, (v: string) => Number(v));
pg.types.setTypeParser(NUMERIC, (v: string) => Number(v));

export interface DbOptions {
  /** postgres:// URL; when absent the embedded PGlite database is used. */
  databaseUrl?: string;
  /** Directory for the embedded database; `memory` keeps it in memory (tests). */
  dataDir?: string | 'memory';
  /** PostgreSQL schema to use (tests isolate runs by schema). */
  searchPath?: string;
  /** For `memory`: start from this copy of a database (see dumpDatabase) instead of an empty one. */
  loadDataDir?: Blob;
}

/** Opens the database: PostgreSQL through pg when a URL is given, otherwise one PGlite instance. */
export async function openDatabase(opts: DbOptions): Promise<Db> {
  if (opts.databaseUrl) {
    return knexFactory({
      client: 'pg',
      connection: opts.databaseUrl,
      searchPath: opts.searchPath ? [opts.searchPath] : undefined,
      pool: { min: 0, max: 10 },
      acquireConnectionTimeout: 10_000,
    });
  }
  let dataDir: string | undefined;
  let lock: DataDirLock | null = null;
  if (opts.dataDir && opts.dataDir !== 'memory') {
    // Before anything touches the directory: a second process stops here.
    lock = lockDataDir(opts.dataDir);
    dataDir = path.resolve(opts.dataDir, 'pgdata');
    fs.mkdirSync(dataDir, { recursive: true });
  }
  let pglite: PGlite;
  try {
    pglite = new PGlite({
      dataDir,
      loadDataDir: dataDir ? undefined : opts.loadDataDir,
      parsers: { [INT8]: (v: string) => Number(v), [NUMERIC]: (v: string) => Number(v) },
    });
    await pglite.waitReady;
  } catch (err) {
    lock?.release();
    throw err;
  }
  const db = knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    // One PGlite instance per process: two on one directory corrupt it.
    connection: () => ({ pglite }) as object,
    acquireConnectionTimeout: 30_000,
  } as Knex.Config);
  embedded.set(db, { pglite, lock });
  return db;
}

/** A copy of an embedded database, for opening another one from it (tests start from a migrated copy). */
export async function dumpDatabase(db: Db): Promise<Blob> {
  const own = embedded.get(db);
  if (!own) throw new Error('dumpDatabase: not an embedded database');
  await own.pglite.exec('checkpoint');
  return own.pglite.dumpDataDir('none');
}

/** Closes the pool and, for the embedded database, the PGlite instance and its data directory lock. */
export async function closeDatabase(db: Db): Promise<void> {
  await db.destroy();
  const own = embedded.get(db);
  if (!own) return;
  try {
    if (!own.pglite.closed) await own.pglite.close();
  } finally {
    own.lock?.release();
  }
}
