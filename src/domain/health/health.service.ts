import type { DatabaseProbe } from './health.ports.js';

/**
 * Readiness of this instance: whether it can serve requests now. Every request needs the database,
 * so ready means the database answers; the instance becomes ready again by itself once it does.
 */
export class HealthService {
  constructor(private readonly database: DatabaseProbe) {}

  /** True when the database answers now; false, never a throw, when it cannot be reached. Anyone may ask. */
  async ready(): Promise<boolean> {
    return this.database.ping().catch(() => false);
  }
}
