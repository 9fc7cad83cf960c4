import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeDatabase, openDatabase } from '../../src/infra/db.js';
import { migrateLatest } from '../../src/infra/migrate.js';

// Creating an embedded database (PGlite's initdb in a process of its own) costs about 4 s of CPU and
// the migrations about 1 s more, on every service an e2e test starts with a data directory of its
// own — some 60 starts per run. Tests that are not about the first start (first-start, start and the
// README walk-through are, and keep an empty directory) begin instead from a copy of one database
// created and migrated once per test process: the service still opens, checks and migrates it the
// way it opens any existing data directory. docs/testing.md, "CI layout (issue 50)".

let template: Promise<string> | undefined;

/** The `pgdata` of a freshly migrated embedded database, made once per process and removed at its exit. */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-template-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const db = await openDatabase({ dataDir: dir });
    await migrateLatest(db);
    await closeDatabase(db);
    return path.join(dir, 'pgdata');
  })();
  return template;
}

/**
 * A new temporary data directory (`prefix` names it). On the embedded database (no
 * TEST_DATABASE_URL) it already holds a migrated database; on PostgreSQL it is empty, as the
 * service keeps only its secrets there.
 */
export async function dataDirWithDatabase(prefix: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  await seedDataDir(dir);
  return dir;
}

/** On the embedded database, copies the migrated database into `dataDir` (which holds none yet). */
export async function seedDataDir(dataDir: string): Promise<void> {
  if (process.env.TEST_DATABASE_URL) return;
  fs.cpSync(await migratedTemplate(), path.join(dataDir, 'pgdata'), { recursive: true });
}
