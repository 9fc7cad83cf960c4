import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/infra/config.js';
import { closeDatabase, openDatabase } from '../../src/infra/db.js';

// DATABASE_POOL_MAX sizes each instance's PostgreSQL pool (docs/operations.md, "Sizing the pool").
// The pool is made without connecting, so no server is needed here.

describe('database pool size (DATABASE_POOL_MAX)', () => {
  it('is 10 unless set, and refuses a value outside 2..500 naming the variable', () => {
    expect(loadConfig({}).databasePoolMax).to.equal(10);
    expect(loadConfig({ DATABASE_POOL_MAX: '40' }).databasePoolMax).to.equal(40);
    for (const bad of ['1', '501', 'ten', '2.5']) {
      expect(() => loadConfig({ DATABASE_POOL_MAX: bad }), bad).to.throw(ConfigError, /DATABASE_POOL_MAX/);
    }
  });

  it('is the most connections the PostgreSQL pool opens', async () => {
    const db = await openDatabase({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', poolMax: 37 });
    try {
      expect((db.client as { pool: { max: number } }).pool.max).to.equal(37);
    } finally {
      await closeDatabase(db);
    }
  });
});
