import { z } from 'zod';
import { DEFAULT_EMBEDDED_SHARED_BUFFERS } from './embedded-db.js';
import { DEFAULT_TASK_RETENTION_DAYS } from '../domain/surfaces/a2a.service.js';
import { parseRelays } from './email/trusted-relays.js';
import { parseTenantTemplate } from '../domain/workspace/tenant-host.js';
import { oidcEnv } from './sso/oidc-config.js';

/** The environment variables the service reads, with their checks and defaults (config.ts maps them to a Config). */
export const configEnv = z.object({
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

/** Whether SMTP_TRUSTED_RELAYS parses (parseRelays says which entry does not). */
function validRelays(list: string): boolean {
  try {
    parseRelays(list);
    return true;
  } catch {
    return false;
  }
}
