import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/infra/config.js';
import { closeDatabase, openDatabase, type Db } from '../../src/infra/db.js';

// The embedded database's memory (docs/decisions.md §23.8): PostgreSQL makes its whole
// shared_buffers resident when it starts, so the size is ours to choose, not PGlite's 128MB; and a
// data directory opens with any size, since the setting is never written into it.

const sharedBuffers = async (db: Db) =>
  ((await db.raw('show shared_buffers')) as { rows: Array<{ shared_buffers: string }> }).rows[0]!.shared_buffers;

describe('embedded database memory (EMBEDDED_SHARED_BUFFERS)', function () {
  this.timeout(60_000);
  let dir: string;

  beforeEach(function () {
    if (process.env.TEST_DATABASE_URL) this.skip();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-embedded-memory-'));
  });
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is 16MB unless set, and refuses a size outside 1MB..1GB naming the variable', () => {
    expect(loadConfig({}).embeddedSharedBuffers).to.equal('16MB');
    expect(loadConfig({ EMBEDDED_SHARED_BUFFERS: '128MB' }).embeddedSharedBuffers).to.equal('128MB');
    for (const bad of ['512kB', '2GB', '32', '32mb', 'lots']) {
      expect(() => loadConfig({ EMBEDDED_SHARED_BUFFERS: bad }), bad).to.throw(ConfigError, /EMBEDDED_SHARED_BUFFERS/);
    }
  });

  it('creates a new data directory, and opens it again with another size and its data intact', async () => {
    let db = await openDatabase({ dataDir: dir });
    try {
      expect(await sharedBuffers(db)).to.equal('16MB');
      await db.raw('create table kept (v text)');
      await db.raw(`insert into kept values ('still here')`);
    } finally {
      await closeDatabase(db);
    }
    db = await openDatabase({ dataDir: dir, sharedBuffers: '128MB' });
    try {
      expect(await sharedBuffers(db)).to.equal('128MB');
      expect((await db.raw('select v from kept')).rows).to.deep.equal([{ v: 'still here' }]);
    } finally {
      await closeDatabase(db);
    }
    // The size is a start argument, never written into the directory's own configuration.
    expect(fs.readFileSync(path.join(dir, 'pgdata', 'postgresql.conf'), 'utf8')).to.match(/^shared_buffers = 128MB/m);
  });

  it('uses the size for an in-memory database too', async () => {
    const db = await openDatabase({ dataDir: 'memory', sharedBuffers: '8MB' });
    try {
      expect(await sharedBuffers(db)).to.equal('8MB');
    } finally {
      await closeDatabase(db);
    }
  });
});
