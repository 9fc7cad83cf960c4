// The service as the benchmarks start it: in this process, listening on a free port, on the
// embedded database in memory or on BENCH_DATABASE_URL, with a GraphQL client for setting it up.
import { loadConfig } from '../src/infra/config.js';
import { buildService, type Service } from '../src/server.js';

export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789';

export interface BenchService {
  service: Service;
  url: string;
  /** A GraphQL request as the admin; returns `data`. */
  gql(query: string): Promise<any>;
}

export async function startBenchService(): Promise<BenchService> {
  const service = await buildService(
    loadConfig({
      DATABASE_URL: process.env.BENCH_DATABASE_URL,
      DATA_DIR: 'memory',
      SECRETS_KEY: Buffer.alloc(32, 3).toString('base64'),
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      LOG_LEVEL: 'error',
    }),
    { housekeepingMs: 0 },
  );
  const { url } = await service.listen(0);
  const gql = async (query: string) =>
    (
      (await (
        await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_ADMIN_TOKEN}` },
          body: JSON.stringify({ query }),
        })
      ).json()) as any
    ).data;
  return { service, url, gql };
}
