import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { systemClock, type Clock } from './domain/clock.js';
import { createServices, type Services } from './domain/services.js';
import type { BootstrapResult } from './domain/workspace/workspace.service.js';
import { createGraphqlMiddleware } from './graphql/server.js';
import type { Config } from './infra/config.js';
import { aesGcmCipher, resolveSecretsKey } from './infra/crypto.js';
import { closeDatabase, openDatabase, type Db } from './infra/db.js';
import { createLogger, type Logger } from './infra/logger.js';
import { migrateLatest } from './infra/migrate.js';
import { knexStore } from './infra/store/knex-store.js';
import { createApp } from './rest/app.js';

export interface Service {
  config: Config;
  db: Db;
  services: Services;
  app: Koa;
  logger: Logger;
  bootstrap: BootstrapResult;
  /** Set when the secrets key file was generated on this start. */
  secretsKeyFile?: string;
  listen(port?: number, host?: string): Promise<{ server: http.Server; url: string }>;
  close(): Promise<void>;
}

export interface BuildOptions {
  /** An already open database (tests share one); otherwise opened from the config. */
  db?: Db;
  clock?: Clock;
  logger?: Logger;
  /** Skip migrations (the caller already migrated). */
  skipMigrations?: boolean;
}

/**
 * The composition root: configuration → database → migrations → repositories → domain services →
 * GraphQL → Koa app. Nothing else builds these.
 */
export async function buildService(config: Config, opts: BuildOptions = {}): Promise<Service> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const secrets = resolveSecretsKey({ secretsKey: config.secretsKey, databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const db = opts.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  const ownsDb = !opts.db;
  try {
    if (!opts.skipMigrations) await migrateLatest(db);
    const services = createServices({ store: knexStore(db), cipher: aesGcmCipher(secrets.key), clock: opts.clock ?? systemClock });
    const bootstrap = await services.workspace.bootstrap({ adminToken: config.adminToken });
    const graphql = await createGraphqlMiddleware(services, logger);
    const app = createApp({ services, logger, graphql: graphql.middleware });
    const servers: http.Server[] = [];
    return {
      config,
      db,
      services,
      app,
      logger,
      bootstrap,
      secretsKeyFile: secrets.generatedAt,
      async listen(port = config.port, host = config.host) {
        const server = http.createServer(app.callback());
        servers.push(server);
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, host, () => resolve());
        });
        const addr = server.address() as AddressInfo;
        const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
        return { server, url: `http://${shownHost}:${addr.port}` };
      },
      async close() {
        await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
        await graphql.stop();
        if (ownsDb) await closeDatabase(db);
      },
    };
  } catch (err) {
    if (ownsDb) await closeDatabase(db);
    throw err;
  }
}
