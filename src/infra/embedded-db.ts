import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';

const run = promisify(execFile);

// What the embedded database (PGlite: PostgreSQL compiled to WebAssembly) holds in memory, and
// why (docs/decisions.md §23.8). PostgreSQL zeroes its whole shared memory when it starts, so every
// byte of `shared_buffers` is resident from the first second; PGlite's own initdb leaves ~450 MB of
// WebAssembly memories behind that an idle process may never collect.

/** PostgreSQL's `shared_buffers` of the embedded database unless EMBEDDED_SHARED_BUFFERS says otherwise. */
export const DEFAULT_EMBEDDED_SHARED_BUFFERS = '16MB';

/**
 * The arguments the embedded PostgreSQL starts with: PGlite's own, then ours. Command-line
 * settings only: nothing is written to the data directory (its postgresql.conf keeps initdb's
 * values), so a directory opens the same with any of them.
 */
export function embeddedStartParams(sharedBuffers: string = DEFAULT_EMBEDDED_SHARED_BUFFERS): string[] {
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`];
}

// Runs in a process of its own (plain JavaScript: it must start from dist and under tsx alike).
const INIT_PROCESS = `
const [pglite, dataDir, startParams] = JSON.parse(process.argv[1]);
import(pglite).then(async ({ PGlite }) => {
  const pg = await PGlite.create({ dataDir, startParams });
  await pg.close();
});
`;

/**
 * Creates the database in an empty data directory in a process of its own (a directory that
 * holds one is left alone). PGlite's initdb runs a second PostgreSQL and copies its whole memory:
 * in this process those WebAssembly memories would stay until a full garbage collection, which an
 * idle service may not run for hours, and even a thread would leave its malloc arena behind. A
 * process's memory leaves with the process.
 */
export async function initialiseDataDir(dataDir: string, startParams: string[]): Promise<void> {
  if (fs.existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  const args = JSON.stringify([
    pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href,
    dataDir,
    startParams,
  ]);
  try {
    await run(process.execPath, ['-e', INIT_PROCESS, args], { maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(`Creating the embedded database in ${dataDir} failed${stderr ? `: ${stderr.slice(-2000)}` : ''}`, {
      cause: err,
    });
  }
}
