import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import ClientPgLite from 'knex-pglite';
import { PGlite } from '@electric-sql/pglite';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { embeddedStartParams, initialiseDataDir } from './embedded-db.js';

export type Db = Knex;

// knex-pglite leaves a passed-in PGlite instance open; closeDatabase closes it with the pool.
const embedded = new WeakMap<Knex, { pglite: PGlite; lock: DataDirLock | null }>();
// The URL each PostgreSQL pool was opened with (a listener needs a connection of its own).
const servers = new WeakMap<Knex, string>();

// int8 (counts, sums) and numeric (credits, prices) come back as JavaScript numbers on both
// drivers; every value we store in them fits a double.
const INT8 = 20;
const NUMERIC = 1700;
const BYTEA = 17;
pg.types.setTypeParser(INT8, (v: string) => Number(v));
pg.types.setTypeParser(NUMERIC, (v: string) => Number(v));

export interface DbOptions {
  /** postgres:// URL; when absent the embedded PGlite database is used. */
  databaseUrl?: string;
  /** The most connections of the PostgreSQL pool (default 10). */
  poolMax?: number;
  /** Directory for the embedded database; `memory` keeps it in memory (tests). */
  dataDir?: string | 'memory';
  /** PostgreSQL schema to use (tests isolate runs by schema). */
  searchPath?: string;
  /** For `memory`: start from this copy of a database (see dumpDatabase) instead of an empty one. */
  loadDataDir?: Blob;
  /** The embedded database's `shared_buffers` (PostgreSQL units, e.g. `32MB`; see embedded-db.ts). */
  sharedBuffers?: string;
}

/** Opens the database: PostgreSQL through pg when a URL is given, otherwise one PGlite instance. */
export async function openDatabase(opts: DbOptions): Promise<Db> {
  if (opts.databaseUrl) {
    const db = knexFactory({
      client: 'pg',
      connection: opts.databaseUrl,
      searchPath: opts.searchPath ? [opts.searchPath] : undefined,
      pool: { min: 0, max: opts.poolMax ?? 10 },
      acquireConnectionTimeout: 10_000,
    });
    servers.set(db, opts.databaseUrl);
    return db;
  }
  let dataDir: string | undefined;
  let lock: DataDirLock | null = null;
  if (opts.dataDir && opts.dataDir !== 'memory') {
    // Before anything touches the directory: a second process stops here.
    lock = lockDataDir(opts.dataDir);
    dataDir = path.resolve(opts.dataDir, 'pgdata');
    fs.mkdirSync(dataDir, { recursive: true });
  }
  const startParams = embeddedStartParams(opts.sharedBuffers);
  let pglite: PGlite;
  try {
    if (dataDir) await initialiseDataDir(dataDir, startParams);
    pglite = new PGlite({
      dataDir,
      loadDataDir: dataDir ? undefined : opts.loadDataDir,
      startParams,
      parsers: { [INT8]: (v: string) => Number(v), [NUMERIC]: (v: string) => Number(v), [BYTEA]: parseBytea },
      serializers: { [BYTEA]: serializeBytea },
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

// PGlite's own bytea conversions go byte by byte through a JavaScript array: a 1 MiB webhook body
// took about 200 ms of CPU each way and left a million strings to collect. Node's hex codec does
// the same in about a millisecond, and reading gives a Buffer, as node-postgres does on PostgreSQL.

/** A bytea value in PostgreSQL's hex text form (`\x…`). */
export function serializeBytea(value: Uint8Array): string {
  if (!(value instanceof Uint8Array)) throw new TypeError('a bytea value must be a Uint8Array');
  return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
}

/** A bytea column's hex text form (`\x…`) as a Buffer. */
export function parseBytea(text: string): Buffer {
  return Buffer.from(text.slice(2), 'hex');
}

/** A copy of an embedded database, for opening another one from it (tests start from a migrated copy). */
/** Whether `db` is the embedded database (one process: its notifications never leave it). */
export function isEmbedded(db: Db): boolean {
  return embedded.has(db);
}

export async function dumpDatabase(db: Db): Promise<Blob> {
  const own = embedded.get(db);
  if (!own) throw new Error('dumpDatabase: not an embedded database');
  await own.pglite.exec('checkpoint');
  return own.pglite.dumpDataDir('none');
}

/** What a channel listener reports: each notification, and whether notifications can be missed. */
export interface ChannelListener {
  message(payload: string): void;
  /** false from a lost connection until LISTEN holds again (notifications in between are lost). */
  connected(up: boolean): void;
}

/**
 * Listens to a NOTIFY channel until the returned stop() is called. On PostgreSQL a connection of
 * its own holds the LISTEN and is opened again after it is lost (every `retryMs`); the embedded
 * database delivers its notifications in process.
 */
export async function listenChannel(
  db: Db,
  channel: string,
  listener: ChannelListener,
  retryMs = 500,
): Promise<() => Promise<void>> {
  const own = embedded.get(db);
  if (own) {
    const unlisten = await own.pglite.listen(channel, listener.message);
    listener.connected(true);
    return async () => {
      if (!own.pglite.closed) await unlisten();
    };
  }
  const url = servers.get(db);
  if (!url) throw new Error('listenChannel: unknown database');
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (n.channel === channel && n.payload !== undefined) listener.message(n.payload);
    });
    const lost = () => {
      if (client !== c) return;
      client = null;
      listener.connected(false);
      c.end().catch(() => {});
      if (!stopped) retry = setTimeout(() => void connect().catch(() => {}), retryMs);
    };
    c.on('error', lost);
    c.on('end', lost);
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      if (client === c) listener.connected(true);
    } catch {
      lost();
    }
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const c = client;
    client = null;
    await c?.end().catch(() => {});
  };
}

/** Sends `payload` on a NOTIFY channel; every listener of the database gets it once the statement has run. */
export async function notifyChannel(db: Db, channel: string, payload: string): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [channel, payload]);
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
