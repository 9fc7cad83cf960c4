import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import knex from 'knex';
import { Unavailable } from '../../src/domain/errors.js';
import { createLogger } from '../../src/infra/logger.js';
import { Writable } from 'node:stream';
import { knexStore } from '../../src/infra/store/knex-store.js';
import { isDatabaseUnavailable, translated, translatePgError } from '../../src/infra/store/pg-errors.js';
import { errorMapper } from '../../src/rest/errors.js';

// A database that cannot be reached is a 503 with Retry-After, never a 500 (docs/operations.md):
// the caller retries, and the instance recovers by itself once the database is back.

const unreachable = [
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
  Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
  Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
  Object.assign(new Error('connection failure'), { code: '08006' }),
  Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), {
    name: 'KnexTimeoutError',
  }),
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
    const db = knex({
      client: 'pg',
      connection: 'postgres://nobody@127.0.0.1:1/none',
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 300,
    });
    try {
      let ran = false;
      const err = await knexStore(db)
        .transaction(async () => {
          ran = true;
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(ran).to.equal(false);
      expect(err).to.be.instanceOf(Unavailable);
    } finally {
      await db.destroy();
    }
  });

  it('becomes Unavailable on every repository call, even one that does not translate its own errors', async () => {
    const raw = () => Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' });
    const repos = translated({ things: { get: async () => Promise.reject(raw()), at: () => raw().code } });
    const err = await repos.things.get().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Unavailable);
    expect((err as Unavailable).retryAfterSeconds).to.equal(5);
    expect(await repos.things.at()).to.equal('ECONNREFUSED'); // what succeeds is answered as it was
    const db = knex({
      client: 'pg',
      connection: 'postgres://nobody@127.0.0.1:1/none',
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 300,
    });
    try {
      const read = await knexStore(db)
        .repos.agents.get('agt_1')
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(read).to.be.instanceOf(Unavailable);
      // The driver's error stays as the cause, for the logs: never in the message a client gets.
      expect((read as Error).cause).to.be.instanceOf(Error);
      expect((read as Error).message).to.not.include('127.0.0.1');
    } finally {
      await db.destroy();
    }
  });

  it('is answered 503 with Retry-After and no detail by the HTTP error mapper, and logged there as a warning', async () => {
    const lines: string[] = [];
    const app = new Koa();
    app.use(async (ctx, next) => {
      ctx.state.requestId = 'req-1';
      await next();
    });
    app.use(errorMapper(createLogger('warn', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }))));
    app.use(() => {
      // As infra hands it on: translated, the driver's error kept as its cause.
      throw translatePgError(Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' }));
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
      const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logged.map((l) => [l.msg, l.requestId, l.path, l.error])).to.deep.equal([
        ['database unavailable', 'req-1', '/x', 'connect ECONNREFUSED 10.0.0.7:5432'],
      ]);
    } finally {
      server.close();
    }
  });
});
