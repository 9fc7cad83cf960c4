import { otelTracing } from './infra/tracing/otel-export.js';
import { SERVICE_VERSION } from './infra/version.js';
import os from 'node:os';
import { systemClock } from './domain/clock.js';
import { createServices, DEFAULT_SCRIPT_LIMITS, type Services } from './domain/services.js';
import { argon2Passwords } from './infra/accounts/argon2-passwords.js';
import { openidRelyingParty } from './infra/sso/openid-relying-party.js';
import { buildGraphqlSchema, schemaSdl } from './graphql/schema.js';
import { aiSdkModels } from './infra/models/ai-sdk.models.js';
import { createQuickJsSandbox } from './infra/sandbox/quickjs.sandbox.js';
import { createGraphqlMiddleware } from './graphql/server.js';
import type { Config } from './infra/config.js';
import { aesGcmCipher, resolveSecretsKey } from './infra/crypto.js';
import { closeDatabase, openDatabase } from './infra/db.js';
import { createLogger } from './infra/logger.js';
import { migrateLatest } from './infra/migrate.js';
import { knexStore } from './infra/store/knex-store.js';
import { cachedStore, ReadCache } from './infra/store/cached-store.js';
import { listenForChanges } from './infra/store/change-listener.js';
import { openCancelChannel } from './infra/surfaces/cancel-channel.js';
import { bufferedActivitySink } from './infra/activity/buffered-sink.js';
import { bufferedChargeSink } from './infra/credits/buffered-charges.js';
import { intervalScheduler } from './infra/scheduler.js';
import { ServiceMetrics } from './infra/metrics.js';
import { startHousekeeping } from './infra/housekeeping.js';
import { smarthostSender } from './infra/email/smarthost.js';
import { startJobWorker, type JobWorkerOptions } from './infra/queue/job-queue.js';
import { startChannelWorker } from './infra/queue/channel-worker.js';
import { startScheduleLoop } from './infra/queue/schedule-loop.js';
import { DEFAULT_SCHEDULE_FIRER, ScheduleFirer } from './domain/schedules/schedule-firer.js';
import { newId } from './domain/ids.js';
import { twilioSmsProvider } from './infra/channels/twilio-sms.js';
import { DEFAULT_DELIVERY_QUEUE, deliveryQueue } from './infra/queue/webhook-deliveries.js';
import { startEventWorker } from './infra/queue/event-deliveries.js';
import { DEFAULT_EVENT_SENDER, standardWebhooksSender } from './infra/events/standard-webhooks-sender.js';
import { webhookFailedEvent } from './domain/events/event-emitters.js';
import { oauthTokenReader, pruneOAuthRecords } from './infra/oauth/oauth-records.js';
import type { Service, BuildOptions } from './composition/service.types.js';
import { senderAuthentication, wireHttpApp } from './composition/http-app.js';
import { runningInstance } from './composition/running.js';

export type { Service, BuildOptions };

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
    // Spans go to a collector when OTEL_EXPORTER_OTLP_ENDPOINT (or its traces variant) is set.
    const tracing = config.tracing ? otelTracing(config.tracing, SERVICE_VERSION) : undefined;
    const services: Services = createServices({
      spanExport: tracing,
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
      onApprovalError: (err, approvalId) => logger.error({ err, approvalId }, 'approved run continuation failed'),
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
      passwords: argon2Passwords,
      platform: config.platform,
      sso: config.oidc ? openidRelyingParty(config.oidc, logger) : undefined,
      eventSender: standardWebhooksSender({ ...DEFAULT_EVENT_SENDER, ...opts.eventSender }),
      eventRetry: opts.eventRetry,
      eventLog: (fields, message) => logger.warn(fields, message),
    });
    const bootstrap = await services.workspace.bootstrap({ adminToken: config.adminToken });
    const graphql = await createGraphqlMiddleware(schema, services, logger, config.baseUrl);
    let draining = false;
    const app = wireHttpApp({
      config,
      opts,
      db,
      store,
      services,
      clock,
      logger,
      metrics,
      secretsKey: secrets.key,
      graphql: graphql.middleware,
      graphqlSdl: schemaSdl(schema),
      draining: () => draining,
    });
    const workerOptions: JobWorkerOptions = {
      concurrency: config.webhookWorkers,
      pollMs: 1_000,
      leaseMs: config.webhookLeaseSeconds * 1000,
      ...opts.webhookWorker,
    };
    const queue = deliveryQueue(
      store.repos.deliveries,
      clock,
      { ...DEFAULT_DELIVERY_QUEUE, leaseMs: workerOptions.leaseMs },
      (d, error) => void webhookFailedEvent(services.eventOutbox, store.repos.agents, d, error),
    );
    const worker = startJobWorker(queue, services.webhookDelivery, logger, workerOptions);
    services.deliveryQueued.onQueued = () => worker.nudge();
    const channelWorker = startChannelWorker(services, store, clock, logger, {
      ...workerOptions,
      deferMaxMs: 60_000,
      ...opts.channelWorker,
    });
    const eventWorker = startEventWorker(services.eventDelivery, services.eventQueued, store, clock, logger, {
      ...workerOptions,
      ...opts.eventWorker,
    });
    // Every instance fires schedules; the fires' key in the database makes one of them fire each occurrence.
    const { pollMs: schedulePollMs, ...firerOptions } = {
      ...DEFAULT_SCHEDULE_FIRER,
      pollMs: 1_000,
      ...opts.scheduleLoop,
    };
    const firer = new ScheduleFirer(
      store,
      clock,
      services.calls,
      { instanceId: `${os.hostname()}:${process.pid}:${newId('ins')}`, ...firerOptions },
      (err) => logger.error(errorFields(err), 'schedule fire failed'),
      services.eventOutbox,
    );
    const scheduleLoop = schedulePollMs > 0 ? startScheduleLoop(firer, logger, schedulePollMs) : undefined;
    const housekeeping = startHousekeeping(
      services,
      () => pruneOAuthRecords(db, clock.now()),
      logger,
      opts.scheduler ?? intervalScheduler,
      opts.housekeepingMs ?? 60 * 60_000,
      config.webhookBodyRetentionDays,
      config.a2aTaskRetentionDays,
    );
    const running = runningInstance({
      config,
      app,
      services,
      metrics,
      logger,
      senderAuth: senderAuthentication(config, opts),
      beginDraining: () => {
        draining = true;
      },
      async stopBackground(endBy) {
        housekeeping?.stop();
        await Promise.all([
          worker.stop(Math.max(0, endBy - Date.now())),
          channelWorker.stop(Math.max(0, endBy - Date.now())),
          eventWorker.stop(Math.max(0, endBy - Date.now())),
          scheduleLoop?.stop(Math.max(0, endBy - Date.now())),
        ]);
      },
      async release() {
        await graphql.stop();
        await services.activityLog.flush();
        await chargeSink
          .flush()
          .catch((err: unknown) => logger.error(errorFields(err), 'credit charges not stored at shutdown'));
        // Credit slices' charges stored, and the budget and leases no run holds given back.
        await services.admission
          .close()
          .catch((err: unknown) => logger.error(errorFields(err), 'credit slices not given back at shutdown'));
        await ownSandbox.close();
        // Spans still buffered go out before the process ends.
        await tracing
          ?.shutdown()
          .catch((err: unknown) => logger.warn(errorFields(err), 'spans not exported at shutdown'));
        await stopListening?.();
        if (ownsDb) await closeDatabase(db);
      },
    });
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
      ...running,
    };
  } catch (err) {
    await stopListening?.();
    if (ownsDb) await closeDatabase(db);
    throw err;
  }
}

function errorFields(err: unknown): { error: string } {
  return { error: err instanceof Error ? err.message : String(err) };
}
