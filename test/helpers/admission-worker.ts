// A second (or third) instance of the service for the multi-process admission tests: it opens the
// same PostgreSQL database, then either fires a burst of pipeline runs (prompt runs, or script runs with
// MODE=script) or holds one slot until killed.
// Results are printed as JSON lines on stdout.
import { LimitExceeded } from '../../src/domain/errors.js';
import { loadConfig } from '../../src/infra/config.js';
import { buildService } from '../../src/server.js';
import { TEST_SECRETS_KEY } from './harness.js';

const env = process.env;
const config = loadConfig({
  DATABASE_URL: env.TEST_DATABASE_URL,
  SECRETS_KEY: TEST_SECRETS_KEY,
  LOG_LEVEL: 'silent',
  PORT: '0',
});
const service = await buildService(config, {
  skipMigrations: true,
  housekeepingMs: 0,
  admission: { leaseMs: Number(env.LEASE_MS ?? 30_000) },
});
const agent = (await service.store.repos.agents.get(env.AGENT_ID!))!;
const principal = { kind: 'agentKey', keyId: 'key_worker', workspaceId: agent.workspaceId, agentId: agent.id } as const;
const out = (o: unknown) => process.stdout.write(JSON.stringify(o) + '\n');

if (env.MODE === 'hold') {
  await service.services.admission.admit(agent);
  out({ admitted: true });
  await new Promise(() => {}); // hold the slot (and renew it) until killed
} else {
  // Each result is printed as soon as it is known, so a test sees the refusals while the admitted
  // runs still wait.
  const calls = Array.from({ length: Number(env.CALLS ?? 1) }, async () => {
    try {
      const r = await service.services.pipeline.execute(
        principal,
        agent,
        env.MODE === 'script'
          ? {
              kind: 'http',
              id: null,
              name: 'sum',
              handler: { kind: 'script', body: 'return 1 + 1;' },
              modelOverride: null,
            }
          : {
              kind: 'http',
              id: null,
              name: 'slow',
              handler: { kind: 'prompt', body: 'answer slowly' },
              modelOverride: null,
            },
        { surface: 'HTTP_API', method: 'POST', path: 'slow', params: {}, query: {}, headers: {}, body: 'hi' },
      );
      out({ ok: true, error: r.error ?? null });
    } catch (err) {
      if (err instanceof LimitExceeded) out({ ok: false, reason: err.reason, retryAfter: err.retryAfterSeconds });
      else out({ ok: false, crash: String(err) });
    }
  });
  await Promise.all(calls);
  await service.close();
  process.exit(0);
}
