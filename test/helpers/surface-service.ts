import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/infra/config.js';
import { createLogger, type Logger } from '../../src/infra/logger.js';
import { buildService, type BuildOptions, type Service } from '../../src/server.js';
import { keepIdleConnectionsLonger } from './harness.js';
import { NO_DNS } from './mail-auth.js';
import { startOpenAiServer, type FakeOpenAi } from './openai-server.js';
import { databaseEnv, graphqlClient } from './process.js';
import { dataDirWithDatabase } from './embedded-template.js';

export interface InProcessService {
  service: Service;
  /** The listening HTTP server (tests watch its 'request' events to know a request has arrived). */
  server: http.Server;
  url: string;
  /** The SMTP listener's port, when SMTP_PORT was set. */
  smtpPort?: number;
  stop(): Promise<void>;
}

/**
 * Starts the service for the surface e2e tests inside the test process — the same composition root
 * and Koa app `npm start` builds, listening on a free port of 127.0.0.1 — so coverage and mutation
 * testing see the surface code. Configured through the same variables as `npm start`: a local
 * OpenAI-compatible model server, the platform origin, its own database (a data directory, or a
 * PostgreSQL schema from `databaseEnv`). `logger` replaces the silent one (tests that read log lines).
 */
export async function startSurfaceService(opts: {
  dataDir: string;
  adminToken: string;
  modelUrl: string;
  platformOrigin: string;
  database: Record<string, string | undefined>;
  logger?: Logger;
  /** Options of the composition root (e.g. a short chat keep-alive). */
  build?: Omit<BuildOptions, 'logger'>;
  /** More environment variables of the configuration. */
  env?: Record<string, string>;
}): Promise<InProcessService> {
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: opts.dataDir,
    ADMIN_TOKEN: opts.adminToken,
    OPENAI_BASE_URL: opts.modelUrl,
    OPENAI_API_KEY: 'test',
    PLATFORM_ORIGINS: opts.platformOrigin,
    LOG_LEVEL: 'silent',
    ...opts.database,
    ...opts.env,
  });
  // No test asks the network's DNS for its email sender checks: tests that need records pass their own.
  const service = await buildService(config, {
    dnsResolver: NO_DNS,
    ...opts.build,
    logger: opts.logger ?? createLogger('silent'),
  });
  const { server, url, smtpPort } = await service.listen(0, '127.0.0.1');
  keepIdleConnectionsLonger(server);
  return { service, server, url, ...(smtpPort !== undefined ? { smtpPort } : {}), stop: () => service.close() };
}

/** The service of an e2e test with its fake model server, database and data directory. */
export interface E2eService extends InProcessService {
  fake: FakeOpenAi;
  adminToken: string;
  /** The service's data directory (removed by `stop`; tests may keep files of their own in it). */
  dataDir: string;
  /** GraphQL as the admin: throws on errors, returns `data`. */
  gql: (query: string, variables?: Record<string, unknown>) => Promise<any>;
  /**
   * Starts one more instance on the same database and model server, with a data directory of its
   * own (PostgreSQL only: an embedded database belongs to one process); `stop` stops it too.
   */
  another(): Promise<InProcessService>;
  /** Stops the service (every instance) and the model server, drops the database and removes the data directory. */
  stop(): Promise<void>;
}

/**
 * The one way an e2e test starts the service as a user starts it: `npm start`'s composition root on
 * a free port, a fresh data directory, its own database (`name` is the PostgreSQL schema under
 * TEST_DATABASE_URL), and a local OpenAI-compatible model server as the environment's provider.
 */
export async function startE2eService(
  name: string,
  opts: {
    adminToken?: string;
    platformOrigin?: string;
    logger?: Logger;
    build?: Omit<BuildOptions, 'logger'>;
    /** More environment variables of the configuration. */
    env?: Record<string, string>;
    /**
     * A server the service reaches the model through instead of the model server itself (a gate the
     * test holds or opens); `stop` closes it after the service and before the model server.
     */
    modelProxy?: (fake: FakeOpenAi) => Promise<{ url: string; close(): Promise<void> }>;
  } = {},
): Promise<E2eService> {
  const adminToken = opts.adminToken ?? `${name}-admin-token-0123456789abcdef`;
  const dataDir = await dataDirWithDatabase(`aes-${name.replace(/\W/g, '-')}-`);
  const fake = await startOpenAiServer();
  const proxy = opts.modelProxy ? await opts.modelProxy(fake) : undefined;
  const database = await databaseEnv(name.replace(/\W/g, '_'));
  const dirs = [dataDir];
  const instance = (dir: string) =>
    startSurfaceService({
      dataDir: dir,
      adminToken,
      modelUrl: proxy?.url ?? fake.url,
      platformOrigin: opts.platformOrigin ?? 'https://app.example.test',
      database: database.env,
      logger: opts.logger,
      build: opts.build,
      env: opts.env,
    });
  const svc = await instance(dataDir);
  const others: InProcessService[] = [];
  return {
    ...svc,
    fake,
    adminToken,
    dataDir,
    gql: graphqlClient(() => svc.url, adminToken),
    async another() {
      const dir = fs.mkdtempSync(`${dataDir}-`);
      dirs.push(dir);
      const other = await instance(dir);
      others.push(other);
      return other;
    },
    async stop() {
      await svc.stop();
      for (const other of others) await other.stop();
      await proxy?.close();
      await fake.close();
      await database.drop();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
