import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import knex from 'knex';
import { Unavailable } from '../../src/domain/errors.js';
import { createLogger } from '../../src/infra/logger.js';
import { knexStore } from '../../src/infra/store/knex-store.js';
import { isDatabaseUnavailable, translatePgError } from '../../src/infra/store/pg-errors.js';
import { errorMapper } from '../../src/rest/errors.js';

// A database that cannot be reached is a 503 with Retry-After, never a 500 (docs/operations.md):
// the caller retries, and the instance recovers by itself once the database is back.

const unreachable = [
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
  Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
  Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
  Object.assign(new Error('connection failure'), { code: '08006' }),
  Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
  new Error('Connection terminated unexpectedly'),
];
const refused = [
  Object.assign(new Error('duplicate key'), { code: '23505' }),
  Object.assign(new Error('syntax error at or near'), { code: '42601' }),
  new Error('something else'),
];

describe('a database that cannot be reached', () => {
  it('is told apart from a statement the database refused', () => {
    for (const err of unreachable) expect(isDatabaseUnavailable(err), err.message).to.equal(true);
    for (const err of refused) expect(isDatabaseUnavailable(err), err.message).to.equal(false);
    expect(isDatabaseUnavailable(null)).to.equal(false);
  });

  it('becomes Unavailable (retry after 5 s) in the repositories', () => {
    for (const err of unreachable) {
      const t = translatePgError(err);
      expect(t, err.message).to.be.instanceOf(Unavailable);
      expect((t as Unavailable).retryAfterSeconds).to.equal(5);
      expect((t as Unavailable).message).to.not.include('127.0.0.1');
    }
  });

  it('becomes Unavailable when a transaction cannot begin, not only when a statement fails', async () => {
    const db = knex({ client: 'pg', connection: 'postgres://nobody@127.0.0.1:1/none', pool: { min: 0, max: 1 }, acquireConnectionTimeout: 300 });
    try {
      let ran = false;
      const err = await knexStore(db)
        .transaction(async () => {
          ran = true;
        })
        .then(() => null, (e: unknown) => e);
      expect(ran).to.equal(false);
      expect(err).to.be.instanceOf(Unavailable);
    } finally {
      await db.destroy();
    }
  });

  it('is answered 503 with Retry-After and no detail when it reaches the HTTP error mapper untranslated', async () => {
    const app = new Koa();
    app.use(errorMapper(createLogger('silent')));
    app.use(() => {
      throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' });
    });
    const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`);
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('5');
      const text = await res.text();
      expect(JSON.parse(text)).to.deep.equal({ error: 'The database cannot be reached right now; retry shortly' });
      expect(text).to.not.include('10.0.0.7');
    } finally {
      server.close();
    }
  });
});
