import { configEnv } from './config-env.js';
import { tracingConfigOf, type TracingConfig } from './tracing/otel-config.js';
import { parseTenantTemplate, type TenantTemplate } from '../domain/workspace/tenant-host.js';
import { type OidcConfig, oidcConfigOf } from './sso/oidc-config.js';

export type { OidcConfig };

/** Runtime configuration, read once from the environment by the composition root. */
export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  /** TENANT_BASE_URL read: each workspace's own host (`{tenant}` = its slug); undefined: the shared base URL only. */
  tenantBaseUrl: TenantTemplate | undefined;
  databaseUrl: string | undefined;
  /** The most PostgreSQL connections this instance's pool opens (the change listener holds one more). */
  databasePoolMax: number;
  dataDir: string;
  /** The embedded database's `shared_buffers` (EMBEDDED_SHARED_BUFFERS, PostgreSQL units such as `32MB`). */
  embeddedSharedBuffers: string;
  adminToken: string | undefined;
  secretsKey: string | undefined;
  openaiApiKey: string | undefined;
  openaiBaseUrl: string | undefined;
  /** The model name a prompt run uses when nothing else names one and OPENAI_* is set. */
  openaiModel: string;
  anthropicApiKey: string | undefined;
  /** The model name a prompt run uses when nothing else names one and only ANTHROPIC_API_KEY is set. */
  anthropicModel: string;
  /** Hosts a configured model's base URL may name (MODEL_HOSTS_ALLOWED); undefined: any. */
  modelHostsAllowed: string[] | undefined;
  /**
   * Hosts (`host` or `host:port`) whose OAuth Client ID Metadata Documents may be fetched from a
   * loopback or private address, and over http (OAUTH_CLIENT_HOSTS_ALLOWED); empty: none.
   */
  oauthClientHostsAllowed: string[];
  /** Anonymous OAuth client registration: the cap on unapproved clients kept, and registrations per address and hour. */
  oauthRegistration: { unapprovedClientsMax: number; perAddressPerHour: number };
  platformOrigins: string[];
  logLevel: string;
  /** LOG_FORMAT; undefined: human lines on a terminal, JSON otherwise (decided by the composition root). */
  logFormat: 'json' | 'pretty' | undefined;
  /** Webhook deliveries this instance processes at once (0: it only receives). */
  webhookWorkers: number;
  /** How long a claimed delivery stays with its instance without renewal: how soon a crashed instance's deliveries run elsewhere. */
  webhookLeaseSeconds: number;
  /** The replay window: days after a delivery finished (done or failed) before housekeeping drops its body; the row stays. */
  webhookBodyRetentionDays: number;
  /** Days after an A2A task reached a final state before housekeeping deletes it (and its context's conversation, with the context's last task). */
  a2aTaskRetentionDays: number;
  /** A port of its own for `GET /metrics` (on HOST); undefined: served on the main port. */
  metricsPort: number | undefined;
  /** How long a shutdown waits for requests and runs in flight before it ends them. */
  shutdownTimeoutMs: number;
  /** The Twilio-compatible SMS provider: the account, the token that signs its callbacks and our API calls, its API's base URL. */
  twilioAccountSid: string | undefined;
  twilioAuthToken: string | undefined;
  twilioApiBase: string;
  /** Email channels (docs/decisions.md §32). */
  email: EmailConfig;
  /** Traces exported over OTLP (the standard OTEL_* variables); null when no endpoint is set. */
  tracing: TracingConfig | null;
  /** The shared platform: who operates the deployment, whether people may create workspaces. */
  platform: { operatorEmails: string[]; selfServiceWorkspaces: boolean };
  /** Single sign-on's OpenID Connect provider (OIDC_*); undefined: not configured. */
  oidc: OidcConfig | undefined;
}

/** The email channels' settings: the inbound listener, the smarthost, the provider webhook, the limits. */
export interface EmailConfig {
  /** SMTP_PORT: the inbound listener's port (undefined: no listener). */
  smtpPort: number | undefined;
  /** SMTP_HOST: the address the listener binds (default: HOST). */
  smtpHost: string;
  /** MAIL_DOMAIN: the name the listener gives itself, and the domain of sent Message-IDs. */
  mailDomain: string;
  /** SMTP_URL: the smarthost answers go out through (undefined: they wait in the outbox). */
  smtpUrl: string | undefined;
  /** SMTP_TLS_CERT / SMTP_TLS_KEY: PEM files; STARTTLS is offered with both. */
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  /** SMTP_MAX_MESSAGE_BYTES: the largest message taken (advertised as SIZE). */
  maxMessageBytes: number;
  /** EMAIL_REPLIES_PER_SENDER_PER_HOUR: automatic answers to one recipient per channel and hour. */
  repliesPerSenderPerHour: number;
  /** EMAIL_REPLIES_PER_CHANNEL_PER_HOUR: automatic answers per channel and hour, whoever they go to. */
  repliesPerChannelPerHour: number;
  /** SMTP_TRUSTED_RELAYS: IPs/CIDRs whose Authentication-Results are believed (undefined: none; the listener checks SPF/DKIM/DMARC itself). */
  trustedRelays: string | undefined;
  /** SMTP_TRUSTED_AUTHSERV_ID: the authserv-id of the relays' Authentication-Results (default MAIL_DOMAIN). */
  trustedAuthservId: string;
  /** MAILGUN_TRUST_SPF: believe the X-Mailgun-Spf header Mailgun's spam filter writes. */
  mailgunTrustSpf: boolean;
  /** MAILGUN_WEBHOOK_SIGNING_KEY: checks Mailgun's inbound webhook (undefined: the endpoint refuses everything). */
  mailgunSigningKey: string | undefined;
  /** SMTP_MAX_CONNECTIONS, SMTP_MAX_CONNECTIONS_PER_ADDRESS, SMTP_IDLE_TIMEOUT_SECONDS, SMTP_SESSION_MAX_SECONDS (in ms here). */
  smtpLimits: { maxConnections: number; perAddress: number; idleMs: number; sessionMs: number };
  /** EMAIL_DAILY_MESSAGES_PER_CHANNEL / EMAIL_DAILY_BYTES_PER_CHANNEL: inbound mail one channel stores per UTC day. */
  dailyMessagesPerChannel: number;
  dailyBytesPerChannel: number;
}

export class ConfigError extends Error {}

/** Parses the environment into a Config; throws ConfigError naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configEnv.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (Boolean(e.SMTP_TLS_CERT) !== Boolean(e.SMTP_TLS_KEY))
    throw new ConfigError(
      'Invalid configuration: SMTP_TLS_CERT and SMTP_TLS_KEY: set both (STARTTLS needs the certificate and its key) or neither',
    );
  const oidc = oidcConfigOf(e);
  if (typeof oidc === 'string') throw new ConfigError(`Invalid configuration: ${oidc}`);
  const tracing = tracingConfigOf(cleaned);
  if (typeof tracing === 'string') throw new ConfigError(`Invalid configuration: ${tracing}`);
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const platformOrigins = e.PLATFORM_ORIGINS
    ? e.PLATFORM_ORIGINS.split(',')
        .map((o) => o.trim())
        .filter(Boolean)
    : [new URL(baseUrl).origin];
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    tenantBaseUrl: e.TENANT_BASE_URL ? parseTenantTemplate(e.TENANT_BASE_URL) : undefined,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    dataDir: e.DATA_DIR,
    embeddedSharedBuffers: e.EMBEDDED_SHARED_BUFFERS,
    adminToken: e.ADMIN_TOKEN,
    secretsKey: e.SECRETS_KEY,
    openaiApiKey: e.OPENAI_API_KEY,
    openaiBaseUrl: e.OPENAI_BASE_URL,
    openaiModel: e.OPENAI_MODEL,
    anthropicApiKey: e.ANTHROPIC_API_KEY,
    anthropicModel: e.ANTHROPIC_MODEL,
    modelHostsAllowed: e.MODEL_HOSTS_ALLOWED?.split(',')
      .map((h) => h.trim())
      .filter(Boolean),
    oauthClientHostsAllowed:
      e.OAUTH_CLIENT_HOSTS_ALLOWED?.split(',')
        .map((h) => h.trim())
        .filter(Boolean) ?? [],
    oauthRegistration: {
      unapprovedClientsMax: e.OAUTH_UNAPPROVED_CLIENTS_MAX,
      perAddressPerHour: e.OAUTH_REGISTRATIONS_PER_ADDRESS_HOUR,
    },
    platformOrigins,
    tracing,
    platform: {
      operatorEmails: (e.OPERATOR_EMAILS ?? '')
        .split(',')
        .map((v) => v.trim().toLowerCase())
        .filter(Boolean),
      selfServiceWorkspaces: e.SELF_SERVICE_WORKSPACES === 'true',
    },
    oidc,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    webhookWorkers: e.WEBHOOK_WORKERS,
    webhookLeaseSeconds: e.WEBHOOK_LEASE_SECONDS,
    webhookBodyRetentionDays: e.WEBHOOK_BODY_RETENTION_DAYS,
    a2aTaskRetentionDays: e.A2A_TASK_RETENTION_DAYS,
    metricsPort: e.METRICS_PORT,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    twilioAccountSid: e.TWILIO_ACCOUNT_SID,
    twilioAuthToken: e.TWILIO_AUTH_TOKEN,
    twilioApiBase: e.TWILIO_API_BASE.replace(/\/+$/, ''),
    email: {
      smtpPort: e.SMTP_PORT,
      smtpHost: e.SMTP_HOST ?? e.HOST,
      mailDomain: (e.MAIL_DOMAIN ?? new URL(baseUrl).hostname).toLowerCase(),
      smtpUrl: e.SMTP_URL,
      tlsCertFile: e.SMTP_TLS_CERT,
      tlsKeyFile: e.SMTP_TLS_KEY,
      maxMessageBytes: e.SMTP_MAX_MESSAGE_BYTES,
      repliesPerSenderPerHour: e.EMAIL_REPLIES_PER_SENDER_PER_HOUR,
      repliesPerChannelPerHour: e.EMAIL_REPLIES_PER_CHANNEL_PER_HOUR,
      trustedRelays: e.SMTP_TRUSTED_RELAYS,
      trustedAuthservId: (e.SMTP_TRUSTED_AUTHSERV_ID ?? e.MAIL_DOMAIN ?? new URL(baseUrl).hostname).toLowerCase(),
      mailgunTrustSpf: e.MAILGUN_TRUST_SPF === 'true',
      mailgunSigningKey: e.MAILGUN_WEBHOOK_SIGNING_KEY,
      smtpLimits: {
        maxConnections: e.SMTP_MAX_CONNECTIONS,
        perAddress: e.SMTP_MAX_CONNECTIONS_PER_ADDRESS,
        idleMs: Math.round(e.SMTP_IDLE_TIMEOUT_SECONDS * 1000),
        sessionMs: Math.round(e.SMTP_SESSION_MAX_SECONDS * 1000),
      },
      dailyMessagesPerChannel: e.EMAIL_DAILY_MESSAGES_PER_CHANNEL,
      dailyBytesPerChannel: e.EMAIL_DAILY_BYTES_PER_CHANNEL,
    },
  };
}
