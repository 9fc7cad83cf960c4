import { startHarness, stopHarness } from './helpers/harness.js';

// Mocha root hooks: one database and one started service for the whole run.
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    await startHarness();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(30_000);
    await stopHarness();
  },
};
