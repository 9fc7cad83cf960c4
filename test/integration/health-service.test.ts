import { expect } from 'chai';
import knex from 'knex';
import { HealthService } from '../../src/domain/health/health.service.js';
import { knexStore } from '../../src/infra/store/knex-store.js';
import { h } from '../helpers/harness.js';

// Readiness (`GET /readyz`) asks the health service: ready while the database answers, not ready —
// an answer, never a failure — while it cannot be reached.

describe('health: readiness', function () {
  this.timeout(30_000);

  it('is ready while the database answers', async () => {
    expect(await new HealthService(h().service.store).ready()).to.equal(true);
    expect(await h().service.services.health.ready()).to.equal(true);
  });

  it('is not ready when the database cannot be reached', async () => {
    const gone = knex({
      client: 'pg',
      connection: 'postgres://nobody@127.0.0.1:1/none',
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 300,
    });
    try {
      expect(await new HealthService(knexStore(gone)).ready()).to.equal(false);
    } finally {
      await gone.destroy();
    }
  });

  it('is not ready, rather than failing, when the probe itself throws', async () => {
    const probe = { ping: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) };
    expect(await new HealthService(probe).ready()).to.equal(false);
  });
});
