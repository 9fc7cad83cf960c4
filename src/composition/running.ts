import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Services } from '../domain/services.js';
import type { Config } from '../infra/config.js';
import type { Logger } from '../infra/logger.js';
import type { ServiceMetrics } from '../infra/metrics.js';
import { serveMetrics } from '../infra/metrics-server.js';
import type { SenderAuthOptions } from '../infra/email/sender-authentication.js';
import { startMailIntake } from '../surfaces/email/mail-intake.js';
import type { SmtpListener } from '../surfaces/email/smtp-listener.js';
import type { Service } from './service.types.js';

/** What the running instance holds that `close` must stop, in the order it stops them. */
export interface RunningParts {
  config: Config;
  app: Koa;
  services: Services;
  metrics: ServiceMetrics;
  logger: Logger;
  senderAuth: SenderAuthOptions;
  /** Called once when shutdown begins (`/readyz` answers 503 from then on). */
  beginDraining(): void;
  /** Background work stopped after the listeners closed: housekeeping, then the queue workers by `endBy`. */
  stopBackground(endBy: number): Promise<void>;
  /** Everything after the workers: GraphQL, the buffered sinks, admission, sandbox, listeners, database. */
  release(): Promise<void>;
}

/** The instance's `listen` and `close`: HTTP servers (and a metrics port, an SMTP listener) and graceful shutdown. */
export function runningInstance(parts: RunningParts): Pick<Service, 'listen' | 'close'> {
  const { config, app, metrics, logger } = parts;
  const servers: http.Server[] = [];
  let smtp: SmtpListener | undefined;
  return {
    async listen(port = config.port, host = config.host) {
      const server = http.createServer(app.callback());
      servers.push(server);
      await listenOn(server, port, host);
      const addr = server.address() as AddressInfo;
      const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      if (config.metricsPort !== undefined && servers.length === 1) {
        const metricsServer = http.createServer((req, res) => void serveMetrics(metrics, req, res));
        servers.push(metricsServer);
        await listenOn(metricsServer, config.metricsPort, host);
        logger.info({ port: (metricsServer.address() as AddressInfo).port }, 'metrics listening');
      }
      const { email } = config;
      if (email.smtpPort !== undefined && !smtp) {
        const intake = {
          ...email,
          port: email.smtpPort,
          host: email.smtpHost,
          domain: email.mailDomain,
          maxBytes: email.maxMessageBytes,
        };
        smtp = await startMailIntake(
          parts.services.emailReceipt,
          { ...intake, limits: email.smtpLimits, senderAuth: parts.senderAuth },
          logger,
        );
      }
      return { server, url: `http://${shownHost}:${addr.port}`, ...(smtp ? { smtpPort: smtp.port } : {}) };
    },
    /**
     * Graceful shutdown: `/readyz` answers 503 from now on; no new connection is accepted; requests
     * and runs in flight may finish until SHUTDOWN_TIMEOUT_MS, when their connections are closed
     * (their runs are aborted and their leases released); then the webhook worker stops (a
     * delivery still running at the deadline is given back to the queue), pending activity
     * entries and charges are stored, and the database is closed.
     */
    async close() {
      parts.beginDraining();
      const endBy = Date.now() + config.shutdownTimeoutMs;
      const deadline = setTimeout(() => {
        logger.warn(
          { timeoutMs: config.shutdownTimeoutMs },
          'shutdown: requests still in flight at the deadline are cut off',
        );
        for (const s of servers) s.closeAllConnections();
      }, config.shutdownTimeoutMs);
      deadline.unref();
      await Promise.all([
        ...servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
        smtp?.close(),
      ]);
      clearTimeout(deadline);
      await parts.stopBackground(endBy);
      await parts.release();
    },
  };
}

function listenOn(server: http.Server, port: number | undefined, host: string | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}
