import type http from 'node:http';
import type Koa from 'koa';
import type { Clock } from '../domain/clock.js';
import type { Services } from '../domain/services.js';
import type { LanguageModels } from '../domain/models/language-model.ports.js';
import type { ScriptLimits, ScriptSandbox } from '../domain/core/sandbox.ports.js';
import type { BootstrapResult } from '../domain/workspace/workspace.service.js';
import type { Store } from '../domain/ports.js';
import type { AdmissionConfig } from '../domain/admission/admission.service.js';
import type { Config } from '../infra/config.js';
import type { Db } from '../infra/db.js';
import type { Logger } from '../infra/logger.js';
import type { Scheduler } from '../infra/scheduler.js';
import type { JobWorkerOptions } from '../infra/queue/job-queue.js';
import type { ChannelWorkerOptions } from '../infra/queue/channel-worker.js';
import type { DnsResolver } from '../infra/email/sender-authentication.js';
import type { EventSenderConfig } from '../infra/events/standard-webhooks-sender.js';
import type { EventRetryPolicy } from '../domain/events/event-outcome.js';

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
  /** The event queue's worker in this instance (default: the webhook worker's). */
  eventWorker?: Partial<JobWorkerOptions>;
  /** The events' retry schedule and failure streak (tests shorten them: configuration, not sleeping). */
  eventRetry?: Partial<EventRetryPolicy>;
  /** The event sender's timeout and response bound. */
  eventSender?: Partial<EventSenderConfig>;
  /** The schedule loop of this instance: its pass interval (0: no loop), claim lease and on-time grace (default 1 s, 60 s, 10 s). */
  scheduleLoop?: Partial<{ pollMs: number; leaseMs: number; graceMs: number }>;
  /** The keep-alive comment interval of the chat streams (default 15 s; tests shorten it). */
  chatKeepAliveMs?: number;
  /**
   * The DNS the email sender checks (SPF, DKIM keys, DMARC) ask (default: the system's, with
   * timeouts). Tests serve their own records; deliberately not a setting, so production cannot be
   * pointed at a resolver that vouches for anyone.
   */
  dnsResolver?: DnsResolver;
}
