import type http from 'node:http';
import { loadConfig } from '../../src/infra/config.js';
import { createLogger, type Logger } from '../../src/infra/logger.js';
import { buildService, type BuildOptions, type Service } from '../../src/server.js';

export interface InProcessService {
  service: Service;
  /** The listening HTTP server (tests watch its 'request' events to know a request has arrived). */
  server: http.Server;
  url: string;
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
  });
  const service = await buildService(config, { ...opts.build, logger: opts.logger ?? createLogger('silent') });
  const { server, url } = await service.listen(0, '127.0.0.1');
  return { service, server, url, stop: () => service.close() };
}
