import { z } from 'zod';
import { DEFAULT_EMBEDDED_SHARED_BUFFERS } from './embedded-db.js';
import { DEFAULT_TASK_RETENTION_DAYS } from '../domain/surfaces/a2a.service.js';
import { parseRelays } from './email/trusted-relays.js';
import { parseTenantTemplate, type TenantTemplate } from '../domain/workspace/tenant-host.js';
import { type OidcConfig, oidcConfigOf, oidcEnv } from './sso/oidc-config.js';

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

const env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z.url().optional(),
  TENANT_BASE_URL: z
    .string()
    .max(300)
    .superRefine((v, ctx) => {
      try {
        parseTenantTemplate(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    })
    .optional(),
  TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^[A-Za-z0-9]{1,64}$/, 'must be the account SID (letters and digits)')
    .optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).max(256).optional(),
  TWILIO_API_BASE: z.url().default('https://api.twilio.com'),
  SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SMTP_HOST: z.string().min(1).optional(),
  MAIL_DOMAIN: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be a domain name')
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, 'must be smtp://[user:pass@]host[:port] or smtps://…')
    .optional(),
  SMTP_TLS_CERT: z.string().min(1).optional(),
  SMTP_TLS_KEY: z.string().min(1).optional(),
  SMTP_MAX_MESSAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(100 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  EMAIL_REPLIES_PER_SENDER_PER_HOUR: z.coerce.number().int().min(0).max(10_000).default(10),
  EMAIL_REPLIES_PER_CHANNEL_PER_HOUR: z.coerce.number().int().min(0).max(100_000).default(100),
  SMTP_TRUSTED_RELAYS: z
    .string()
    .refine(validRelays, 'must be a comma list of IP addresses or CIDR blocks, for example 10.0.0.5, 192.0.2.0/24')
    .optional(),
  SMTP_TRUSTED_AUTHSERV_ID: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be a host name (the authserv-id the relay writes)')
    .optional(),
  MAILGUN_TRUST_SPF: z.enum(['true', 'false']).default('false'),
  MAILGUN_WEBHOOK_SIGNING_KEY: z.string().min(1).max(256).optional(),
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(200),
  SMTP_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(10),
  SMTP_IDLE_TIMEOUT_SECONDS: z.coerce.number().min(0.05).max(3600).default(60),
  SMTP_SESSION_MAX_SECONDS: z.coerce.number().min(0.05).max(86_400).default(600),
  EMAIL_DAILY_MESSAGES_PER_CHANNEL: z.coerce.number().int().min(1).max(10_000_000).default(1000),
  EMAIL_DAILY_BYTES_PER_CHANNEL: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 ** 4)
    .default(200 * 1024 * 1024),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(500).default(10),
  DATA_DIR: z.string().min(1).default('./data'),
  EMBEDDED_SHARED_BUFFERS: z
    .string()
    .refine((v) => {
      const mb = memoryMb(v);
      return mb !== undefined && mb >= 1 && mb <= 1024;
    }, 'must be a size from 1MB to 1GB in PostgreSQL units, for example 32MB or 256MB')
    .default(DEFAULT_EMBEDDED_SHARED_BUFFERS),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SECRETS_KEY: z.string().optional(),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z
    .string()
    .refine(
      (u) => /^https?:\/\/[^/\s]/i.test(u) && URL.canParse(u),
      'must be an http(s) URL with its scheme, for example http://localhost:11434/v1',
    )
    .optional(),
  MODEL_HOSTS_ALLOWED: z
    .string()
    .regex(
      /^\s*(\*\.)?[A-Za-z0-9.\-[\]:]+(\s*,\s*(\*\.)?[A-Za-z0-9.\-[\]:]+)*\s*$/,
      'must be a comma list of hosts (host, host:port or *.domain)',
    )
    .optional(),
  OAUTH_CLIENT_HOSTS_ALLOWED: z
    .string()
    .regex(
      /^\s*[A-Za-z0-9.\-[\]:]+(\s*,\s*[A-Za-z0-9.\-[\]:]+)*\s*$/,
      'must be a comma list of hosts (host or host:port)',
    )
    .optional(),
  OAUTH_UNAPPROVED_CLIENTS_MAX: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  OAUTH_REGISTRATIONS_PER_ADDRESS_HOUR: z.coerce.number().int().min(0).max(1_000_000).default(20),
  OPENAI_MODEL: z.string().min(1).max(200).default('gpt-4o-mini'),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_MODEL: z.string().min(1).max(200).default('claude-haiku-4-5'),
  PLATFORM_ORIGINS: z.string().optional(),
  WEBHOOK_WORKERS: z.coerce.number().int().min(0).max(64).default(4),
  WEBHOOK_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  WEBHOOK_BODY_RETENTION_DAYS: z.coerce.number().int().min(0).max(30).default(7),
  A2A_TASK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(DEFAULT_TASK_RETENTION_DAYS),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  OPERATOR_EMAILS: z
    .string()
    .max(10_000)
    .refine(
      (v) => v.split(',').every((e) => z.email().safeParse(e.trim()).success),
      'must be a comma list of email addresses',
    )
    .optional(),
  SELF_SERVICE_WORKSPACES: z.enum(['true', 'false']).default('false'),
  ...oidcEnv,
});

/** A PostgreSQL memory size (`512kB`, `32MB`, `1GB`) in MB; undefined when it is not one. */
function memoryMb(value: string): number | undefined {
  const m = /^(\d+)(kB|MB|GB)$/.exec(value);
  if (!m) return undefined;
  return Number(m[1]) * { kB: 1 / 1024, MB: 1, GB: 1024 }[m[2] as 'kB' | 'MB' | 'GB'];
}

export class ConfigError extends Error {}

/** Parses the environment into a Config; throws ConfigError naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = env.safeParse(cleaned);
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

/** Whether SMTP_TRUSTED_RELAYS parses (parseRelays says which entry does not). */
function validRelays(list: string): boolean {
  try {
    parseRelays(list);
    return true;
  } catch {
    return false;
  }
}
