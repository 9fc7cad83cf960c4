import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDirLocked, LOCK_FILE, lockDataDir } from '../../src/infra/data-dir-lock.js';

// The rules of the data directory lock that need no second process (test/e2e/data-dir-lock.test.ts
// starts real ones).

describe('unit: data directory lock', () => {
  let dir: string;
  const lockPath = () => path.join(dir, LOCK_FILE);
  const writeLock = (v: unknown) => fs.writeFileSync(lockPath(), typeof v === 'string' ? v : JSON.stringify(v));

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-lock-unit-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("writes this process's pid and host, refuses a second lock in the same process, and frees the directory on release", () => {
    const lock = lockDataDir(dir);
    const owner = JSON.parse(fs.readFileSync(lockPath(), 'utf8'));
    expect(owner).to.include({ pid: process.pid, hostname: os.hostname() });
    expect(() => lockDataDir(dir)).to.throw(DataDirLocked, `pid ${process.pid}`);
    lock.release();
    expect(fs.existsSync(lockPath())).to.equal(false);
    lockDataDir(dir).release();
  });

  it('names the directory and the holder when a live process holds it (the parent of this test process)', () => {
    writeLock({ pid: process.ppid, hostname: os.hostname(), startedAt: '2026-11-23T10:00:00.000Z' });
    expect(() => lockDataDir(dir)).to.throw(
      DataDirLocked,
      `The data directory ${path.resolve(dir)} is in use by another running process (pid ${process.ppid}`,
    );
    expect(JSON.parse(fs.readFileSync(lockPath(), 'utf8')).pid).to.equal(process.ppid);
  });

  it('trusts a lock of another host (its pid cannot be checked from here)', () => {
    writeLock({ pid: 999_999_999, hostname: `not-${os.hostname()}`, startedAt: 'x' });
    expect(() => lockDataDir(dir)).to.throw(DataDirLocked, /on host not-/);
  });

  it('replaces a lock whose pid is this process but which this process does not hold (a restarted container is pid 1 again)', () => {
    writeLock({ pid: process.pid, hostname: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z' });
    const lock = lockDataDir(dir);
    expect(JSON.parse(fs.readFileSync(lockPath(), 'utf8')).startedAt).to.not.equal('2026-01-01T00:00:00.000Z');
    lock.release();
  });

  it('replaces an unreadable lock file (a start killed while writing it)', () => {
    for (const torn of ['', '{"pid":', '{"pid": -4}', '{"pid": "12"}']) {
      writeLock(torn);
      lockDataDir(dir).release();
    }
  });

  it('release leaves alone a lock that another process took over meanwhile, and is idempotent', () => {
    const lock = lockDataDir(dir);
    writeLock({ pid: process.ppid, hostname: os.hostname(), startedAt: 'later' });
    lock.release();
    lock.release();
    expect(JSON.parse(fs.readFileSync(lockPath(), 'utf8')).startedAt).to.equal('later');
  });
});
