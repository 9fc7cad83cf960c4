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
    if (createComplete(file, me)) {
      heldHere.add(file);
      return {
        release: () => {
          if (heldHere.delete(file)) releaseIfMine(file, me);
        },
      };
    }
    const seen = readRaw(file);
    const owner = parseOwner(seen);
    if (owner && isAlive(owner, heldHere.has(file))) throw new DataDirLocked(dir, owner);
    // Remove only the stale lock that was read, not one a racing start has just put in its place.
    if (readRaw(file) === seen) fs.rmSync(file, { force: true });
  }
  throw new DataDirLocked(dir, readOwner(file) ?? { pid: 0, hostname: 'unknown', startedAt: 'unknown' });
}

/**
 * Creates the lock file with its whole content at once: written to a file of this process, then
 * hard-linked into place (a link fails if the name exists), so no reader sees it half-written.
 */
function createComplete(file: string, me: LockOwner): boolean {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(temp, JSON.stringify(me) + '\n', { mode: 0o644 });
  try {
    fs.linkSync(temp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // Filesystems without hard links (some mounted volumes): an exclusive create instead.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS')
      return createExclusive(file, me);
    throw err;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

function createExclusive(file: string, me: LockOwner): boolean {
  try {
    fs.writeFileSync(file, JSON.stringify(me) + '\n', { flag: 'wx', mode: 0o644 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function readRaw(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function readOwner(file: string): LockOwner | null {
  return parseOwner(readRaw(file));
}

/** The lock's owner, or null when the file is gone or unreadable (left by a start killed while writing it). */
function parseOwner(raw: string | null): LockOwner | null {
  if (raw === null) return null;
  try {
    const v = JSON.parse(raw) as Partial<LockOwner>;
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
