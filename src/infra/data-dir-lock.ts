import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The embedded database may be opened by one process only: two PGlite instances writing one
// directory corrupt it silently. A lock file beside the database says who holds it.

/** The lock file of a data directory. */
export const LOCK_FILE = 'service.lock';

// Data directories this process holds: a lock naming this pid but absent here was left by an
// earlier process that had the same pid (a restarted container is pid 1 again).
const heldHere = new Set<string>();

/** What the lock file holds (JSON), so a second start can name the running process. */
interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
}

/** A second start on a data directory that a running process holds. */
export class DataDirLocked extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    const where = owner.hostname === os.hostname() ? '' : ` on host ${owner.hostname}`;
    super(
      `The data directory ${dataDir} is in use by another running process (pid ${owner.pid}${where}, started ${owner.startedAt}). ` +
        'Stop that process first, or give this one its own DATA_DIR. Two processes writing one embedded database corrupt it.',
    );
    this.name = 'DataDirLocked';
  }
}

export interface DataDirLock {
  /** Removes the lock file if it is still this process's (idempotent). */
  release(): void;
}

/**
 * Takes the lock of `dataDir` or throws DataDirLocked naming the holder. A lock left by a process
 * that no longer runs on this host is stale: it is replaced. A lock from another host is trusted
 * (its pid cannot be checked from here).
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const dir = path.resolve(dataDir);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() };
  // Two rounds: a stale lock is removed once, then created exclusively; a racing start that wins
  // the exclusive create in between makes this one fail as it should.
  for (let round = 0; round < 2; round++) {
    try {
      fs.writeFileSync(file, JSON.stringify(me) + '\n', { flag: 'wx', mode: 0o644 });
      heldHere.add(file);
      return {
        release: () => {
          if (heldHere.delete(file)) releaseIfMine(file, me);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = readOwner(file);
    if (owner && isAlive(owner, heldHere.has(file))) throw new DataDirLocked(dir, owner);
    fs.rmSync(file, { force: true });
  }
  throw new DataDirLocked(dir, readOwner(file) ?? { pid: 0, hostname: 'unknown', startedAt: 'unknown' });
}

/** The lock's owner, or null when the file is gone or unreadable (a torn write is stale). */
function readOwner(file: string): LockOwner | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockOwner>;
    if (typeof v.pid !== 'number' || !Number.isInteger(v.pid) || v.pid <= 0) return null;
    return { pid: v.pid, hostname: String(v.hostname ?? ''), startedAt: String(v.startedAt ?? '') };
  } catch {
    return null;
  }
}

function isAlive(owner: LockOwner, heldByThisProcess: boolean): boolean {
  if (owner.hostname !== os.hostname()) return true;
  if (owner.pid === process.pid) return heldByThisProcess;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseIfMine(file: string, me: LockOwner): void {
  const owner = readOwner(file);
  if (owner && owner.pid === me.pid && owner.startedAt === me.startedAt) fs.rmSync(file, { force: true });
}
