import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import ClientPgLite from 'knex-pglite';
import { PGlite } from '@electric-sql/pglite';

export type Db = Knex;

// knex-pglite leaves a passed-in PGlite instance open; closeDatabase closes it with the pool.
const embedded = new WeakMap<Knex, PGlite>();

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
  if (opts.dataDir && opts.dataDir !== 'memory') {
    dataDir = path.resolve(opts.dataDir, 'pgdata');
    fs.mkdirSync(dataDir, { recursive: true });
  }
  const pglite = new PGlite(dataDir, {
    parsers: { [INT8]: (v: string) => Number(v), [NUMERIC]: (v: string) => Number(v) },
  });
  await pglite.waitReady;
  const db = knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    // One PGlite instance per process: two on one directory corrupt it.
    connection: () => ({ pglite }) as object,
    acquireConnectionTimeout: 30_000,
  } as Knex.Config);
  embedded.set(db, pglite);
  return db;
}

/** Closes the pool and, for the embedded database, the PGlite instance. */
export async function closeDatabase(db: Db): Promise<void> {
  await db.destroy();
  const pglite = embedded.get(db);
  if (pglite && !pglite.closed) await pglite.close();
}
