import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { systemClock, type Clock } from './domain/clock.js';
import { createServices, DEFAULT_SCRIPT_LIMITS, type Services } from './domain/services.js';
import type { LanguageModels } from './domain/models/language-model.ports.js';
import type { ScriptLimits, ScriptSandbox } from './domain/core/sandbox.ports.js';
import { buildGraphqlSchema, schemaSdl } from './graphql/schema.js';
import { aiSdkModels } from './infra/models/ai-sdk.models.js';
import { createQuickJsSandbox } from './infra/sandbox/quickjs.sandbox.js';
import type { BootstrapResult } from './domain/workspace/workspace.service.js';
import { createGraphqlMiddleware } from './graphql/server.js';
import type { Config } from './infra/config.js';
import { aesGcmCipher, resolveSecretsKey } from './infra/crypto.js';
import { closeDatabase, openDatabase, type Db } from './infra/db.js';
import { createLogger, type Logger } from './infra/logger.js';
import { migrateLatest } from './infra/migrate.js';
import { knexStore } from './infra/store/knex-store.js';
import type { Store } from './domain/ports.js';
import { cachedStore, ReadCache } from './infra/store/cached-store.js';
import { listenForChanges } from './infra/store/change-listener.js';
import { openCancelChannel } from './infra/surfaces/cancel-channel.js';
import { bufferedActivitySink } from './infra/activity/buffered-sink.js';
import { bufferedChargeSink } from './infra/credits/buffered-charges.js';
import { intervalScheduler, type Scheduler } from './infra/scheduler.js';
import type { AdmissionConfig } from './domain/admission/admission.service.js';
import { createApp } from './rest/app.js';
import { ServiceMetrics } from './infra/metrics.js';
import { serveMetrics } from './infra/metrics-server.js';
import { startHousekeeping } from './infra/housekeeping.js';
import { startMailIntake } from './surfaces/email/mail-intake.js';
import { mailgunIntake } from './surfaces/email/mailgun-intake.js';
import { mailgunTokens } from './infra/email/mailgun-tokens.js';
import { smarthostSender } from './infra/email/smarthost.js';
import type { SmtpListener } from './surfaces/email/smtp-listener.js';
import type { DnsResolver, SenderAuthOptions } from './infra/email/sender-authentication.js';
import { parseRelays } from './infra/email/trusted-relays.js';
import { graphiqlBundle } from './infra/graphiql/bundle.js';
import { widgetBundle } from './infra/widget/bundle.js';
import { consoleBundle } from './infra/console/bundle.js';
import { startJobWorker, type JobWorkerOptions } from './infra/queue/job-queue.js';
import { startChannelWorker, type ChannelWorkerOptions } from './infra/queue/channel-worker.js';
import { twilioSmsProvider } from './infra/channels/twilio-sms.js';
import { DEFAULT_DELIVERY_QUEUE, deliveryQueue } from './infra/queue/webhook-deliveries.js';
import type Provider from 'oidc-provider';
import { createAuthorizationServer } from './surfaces/oauth/authorization-server.js';
import { oauthTokenReader, pruneOAuthRecords } from './infra/oauth/oauth-records.js';
import { admitRegistration } from './infra/oauth/registration-limits.js';

export interface Service {
  config: Config;
  db: Db;
  services: Services;
  /** The repositories behind the services, for the instance's own wiring and for tests; never handed to an adapter. */
  store: Store;
  clock: Clock;
  app: Koa;
  logger: Logger;
  bootstrap: BootstrapResult;
  /** Set when the secrets key file was generated on this start. */
  secretsKeyFile?: string;
  /** Starts the HTTP server (and, on the first call with SMTP_PORT set, the SMTP listener: `smtpPort`). */
  listen(port?: number, host?: string): Promise<{ server: http.Server; url: string; smtpPort?: number }>;
  close(): Promise<void>;
}

export interface BuildOptions {
  /** An already open database (tests share one); otherwise opened from the config. */
  db?: Db;
  clock?: Clock;
  logger?: Logger;
  /** An extra CA the fetch of OAuth clients' metadata documents trusts (tests with a local HTTPS server). */
  oauthClientMetadataCa?: string;
  /** Skip migrations (the caller already migrated). */
  skipMigrations?: boolean;
  /** Replace the model adapter or the sandbox (tests of failure paths). */
  models?: LanguageModels;
  sandbox?: ScriptSandbox;
  /** Replace the script limits (tests that must stay fast with CPU-bound scripts). */
  scriptLimits?: ScriptLimits;
  admission?: Partial<AdmissionConfig>;
  /** Housekeeping interval (activity pruning, expired slots); 0 disables it. */
  housekeepingMs?: number;
  /** What runs housekeeping every `housekeepingMs` (default: a real interval timer); tests pass one they drive with `clock`. */
  scheduler?: Scheduler;
  /** The webhook queue's worker in this instance (default from the config). */
  webhookWorker?: Partial<JobWorkerOptions>;
  /** The channel queue's worker in this instance (default: the webhook worker's, deferrals at most a minute). */
  channelWorker?: Partial<ChannelWorkerOptions>;
  /** The keep-alive comment interval of the chat streams (default 15 s; tests shorten it). */
  chatKeepAliveMs?: number;
  /**
   * The DNS the email sender checks (SPF, DKIM keys, DMARC) ask (default: the system's, with
   * timeouts). Tests serve their own records; deliberately not a setting, so production cannot be
   * pointed at a resolver that vouches for anyone.
   */
  dnsResolver?: DnsResolver;
}

/**
 * The composition root: configuration → database → migrations → repositories → domain services →
 * GraphQL → Koa app. Nothing else builds these.
 */
export async function buildService(config: Config, opts: BuildOptions = {}): Promise<Service> {
  const logger =
    opts.logger ??
    createLogger(config.logLevel, undefined, config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json'));
  const secrets = resolveSecretsKey({
    secretsKey: config.secretsKey,
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
  });
  const db =
    opts.db ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      poolMax: config.databasePoolMax,
      dataDir: config.dataDir,
      sharedBuffers: config.embeddedSharedBuffers,
    }));
  const ownsDb = !opts.db;
  let stopListening: (() => Promise<void>) | undefined;
  try {
    if (!opts.skipMigrations) await migrateLatest(db);
    const schema = await buildGraphqlSchema();
    // Always built: it compiles scripts on save even when a test replaces the sandbox that runs them
    // (its workers start on demand, so an unused one costs nothing).
    const ownSandbox = createQuickJsSandbox();
    // Agents, keys, entries, teams and workspaces are read from memory on the hot path; every
    // instance's writes reach the cache through the database's change notifications.
    const cache = new ReadCache();
    const stopChanges = await listenForChanges(db, cache, logger);
    stopListening = stopChanges;
    const cancels = await openCancelChannel(db, logger);
    stopListening = async () => {
      await cancels.close();
      await stopChanges();
    };
    const store = cachedStore(knexStore(db), cache);
    const activitySink = bufferedActivitySink(store, logger);
    const chargeSink = bufferedChargeSink(store, logger);
    // Read when scraped: `services` exists by then.
    const metrics = new ServiceMetrics(
      { db, leasesHeld: () => services.admission.leasesHeld(), activityBacklog: () => activitySink.backlog() },
      logger,
    );
    const clock = opts.clock ?? systemClock;
    const services: Services = createServices({
      metrics,
      cancels,
      store,
      activitySink,
      chargeSink,
      admission: { instanceId: `${os.hostname()}:${process.pid}`, ...opts.admission },
      cipher: aesGcmCipher(secrets.key),
      clock,
      models: opts.models ?? aiSdkModels(logger),
      sandbox: opts.sandbox ?? ownSandbox,
      compiler: ownSandbox,
      modelDefaults: {
        openai:
          config.openaiApiKey || config.openaiBaseUrl
            ? { apiKey: config.openaiApiKey ?? null, baseUrl: config.openaiBaseUrl ?? null, model: config.openaiModel }
            : null,
        anthropic: config.anthropicApiKey ? { apiKey: config.anthropicApiKey, model: config.anthropicModel } : null,
        allowedHosts: config.modelHostsAllowed ?? null,
      },
      scriptLimits: opts.scriptLimits ?? DEFAULT_SCRIPT_LIMITS,
      oauthTokens: oauthTokenReader(db),
      sms: twilioSmsProvider({
        accountSid: config.twilioAccountSid,
        authToken: config.twilioAuthToken,
        apiBase: config.twilioApiBase,
      }),
      email: smarthostSender(config.email.smtpUrl),
      mailDomain: config.email.mailDomain,
      emailReceipt: {
        repliesPerSenderPerHour: config.email.repliesPerSenderPerHour,
        repliesPerChannelPerHour: config.email.repliesPerChannelPerHour,
        quota: { messagesPerDay: config.email.dailyMessagesPerChannel, bytesPerDay: config.email.dailyBytesPerChannel },
      },
      baseUrl: config.baseUrl,
    });
    const providers = new Map<string, Provider>();
    // One authorization server per issuer: BASE_URL's origin, or on port 0 the origin requests came to.
    const providerFor = (issuer: string): Provider => {
      let provider = providers.get(issuer);
      if (!provider) {
        if (providers.size >= 4) providers.clear();
        provider = createAuthorizationServer(issuer, {
          db,
          oauth: services.mcpOAuth,
          grants: store.repos.mcpGrants,
          secretsKey: secrets.key,
          clientHostsAllowed: config.oauthClientHostsAllowed,
          ...(opts.oauthClientMetadataCa ? { clientMetadataCa: opts.oauthClientMetadataCa } : {}),
          logger,
        });
        providers.set(issuer, provider);
      }
      return provider;
    };
    // Who an email is from: SPF/DKIM/DMARC through DNS, or a trusted relay's Authentication-Results.
    const senderAuth: SenderAuthOptions = {
      resolver: opts.dnsResolver,
      mta: config.email.mailDomain,
      relays: config.email.trustedRelays
        ? { relays: parseRelays(config.email.trustedRelays), authservId: config.email.trustedAuthservId }
        : undefined,
    };
    const bootstrap = await services.workspace.bootstrap({ adminToken: config.adminToken });
    const graphql = await createGraphqlMiddleware(schema, services, logger, config.baseUrl);
    // Built now so that the first `GET /widget.js` does not wait for it.
    widgetBundle().catch((err: unknown) => logger.error({ err }, 'The chat widget could not be built'));
    graphiqlBundle().catch((err: unknown) =>
      logger.error({ err }, 'GraphiQL (the page of /graphql in a browser) could not be built'),
    );
    consoleBundle().catch((err: unknown) =>
      logger.error(
        { err },
        'The console could not be built (its packages are devDependencies: npm install, or npm run build)',
      ),
    );
    let draining = false;
    const app = createApp({
      services,
      logger,
      graphql: graphql.middleware,
      graphqlSdl: schemaSdl(schema),
      platformOrigins: config.platformOrigins,
      baseUrl: config.baseUrl,
      widget: widgetBundle,
      graphiql: graphiqlBundle,
      console: consoleBundle,
      chatKeepAliveMs: opts.chatKeepAliveMs,
      metrics,
      metricsElsewhere: config.metricsPort !== undefined,
      draining: () => draining,
      oauth: providerFor,
      oauthRegistration: (address) => admitRegistration(db, clock.now(), address, config.oauthRegistration),
      mailgun: mailgunIntake(
        services.emailReceipt,
        mailgunTokens(db),
        clock,
        {
          signingKey: config.email.mailgunSigningKey,
          maxBytes: config.email.maxMessageBytes,
          senderAuth,
          trustSpfHeader: config.email.mailgunTrustSpf,
        },
        logger,
      ),
    });
    const servers: http.Server[] = [];
    let smtp: SmtpListener | undefined;
    const workerOptions: JobWorkerOptions = {
      concurrency: config.webhookWorkers,
      pollMs: 1_000,
      leaseMs: config.webhookLeaseSeconds * 1000,
      ...opts.webhookWorker,
    };
    const queue = deliveryQueue(store.repos.deliveries, clock, {
      ...DEFAULT_DELIVERY_QUEUE,
      leaseMs: workerOptions.leaseMs,
    });
    const worker = startJobWorker(queue, services.webhookDelivery, logger, workerOptions);
    services.deliveryQueued.onQueued = () => worker.nudge();
    const channelWorker = startChannelWorker(services, store, clock, logger, {
      ...workerOptions,
      deferMaxMs: 60_000,
      ...opts.channelWorker,
    });
    const housekeeping = startHousekeeping(
      services,
      () => pruneOAuthRecords(db, clock.now()),
      logger,
      opts.scheduler ?? intervalScheduler,
      opts.housekeepingMs ?? 60 * 60_000,
      config.webhookBodyRetentionDays,
      config.a2aTaskRetentionDays,
    );
    return {
      config,
      db,
      services,
      store,
      clock,
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
        if (config.metricsPort !== undefined && servers.length === 1) {
          const metricsServer = http.createServer((req, res) => void serveMetrics(metrics, req, res));
          servers.push(metricsServer);
          await new Promise<void>((resolve, reject) => {
            metricsServer.once('error', reject);
            metricsServer.listen(config.metricsPort, host, () => resolve());
          });
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
            services.emailReceipt,
            { ...intake, limits: email.smtpLimits, senderAuth },
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
        draining = true;
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
        housekeeping?.stop();
        await Promise.all([
          worker.stop(Math.max(0, endBy - Date.now())),
          channelWorker.stop(Math.max(0, endBy - Date.now())),
        ]);
        await graphql.stop();
        await services.activityLog.flush();
        await chargeSink
          .flush()
          .catch((err: unknown) =>
            logger.error(
              { error: err instanceof Error ? err.message : String(err) },
              'credit charges not stored at shutdown',
            ),
          );
        // Credit slices' charges stored, and the budget and leases no run holds given back.
        await services.admission
          .close()
          .catch((err: unknown) =>
            logger.error(
              { error: err instanceof Error ? err.message : String(err) },
              'credit slices not given back at shutdown',
            ),
          );
        await ownSandbox.close();
        await stopListening?.();
        if (ownsDb) await closeDatabase(db);
      },
    };
  } catch (err) {
    await stopListening?.();
    if (ownsDb) await closeDatabase(db);
    throw err;
  }
}
