import type { SpanExport } from './tracing/trace.ports.js';
import type { CancelChannel } from './calls/call-cancel.ports.js';
import type { ActivitySink } from './activity/activity-log.js';
import type { AdmissionConfig } from './admission/admission.service.js';
import type { Clock } from './clock.js';
import type { SignInRules } from './console/session.service.js';
import type { SsoProvider } from './accounts/sso.ports.js';
import type { ChargeSink } from './admission/admission.ports.js';
import type { Store } from './ports.js';
import type { Cipher } from './secrets/secret.ports.js';
import type { ModelDefaults } from './models/model-resolver.js';
import type { LanguageModels } from './models/language-model.ports.js';
import type { OAuthTokenReader } from './mcp-oauth/mcp-oauth.ports.js';
import type { RunMetrics } from './runtime/run-metrics.ports.js';
import type { ScriptLimits, ScriptSandbox } from './core/sandbox.ports.js';
import type { PlatformOptions } from './accounts/account.service.js';
import type { PasswordHasher } from './accounts/account.ports.js';
import type { EventDeps } from './events/event-services.js';
import type { EmailSender, SmsProvider } from './channels/channel.ports.js';
import type { EmailReceiptOptions } from './channels/email-receipt.service.js';

// What the domain's services are built from, and the scripts' default limits: set by the composition root.

export interface ServiceDeps extends EventDeps {
  /** Where spans are exported (OTLP); absent: they are only kept in the activity entries. */
  spanExport?: SpanExport;
  store: Store;
  cipher: Cipher;
  clock: Clock;
  models: LanguageModels;
  sandbox: ScriptSandbox;
  /** Compiles script handlers when they are saved (default: `sandbox`). */
  compiler?: ScriptSandbox;
  modelDefaults: ModelDefaults;
  scriptLimits: ScriptLimits;
  activitySink: ActivitySink;
  /** Where charges of runs without a credit limit go (batched by infra); absent: written at once. */
  chargeSink?: ChargeSink;
  admission: Pick<AdmissionConfig, 'instanceId'> & Partial<AdmissionConfig>;
  /** Where runs are counted for /metrics. */
  metrics?: RunMetrics;
  /** Carries call cancels between the instances of one database (default: this process only). */
  cancels?: CancelChannel;
  /** Access tokens of the MCP servers' authorization server; absent: no OAuth token is accepted. */
  oauthTokens?: OAuthTokenReader;
  /** The SMS provider (absent: none configured, every SMS callback is refused). */
  sms?: SmsProvider;
  /** The smarthost email goes out through (absent: none configured, replies wait in the outbox). */
  email?: EmailSender;
  /** How received email is answered (the per-sender rate). */
  emailReceipt?: Partial<EmailReceiptOptions>;
  /** MAIL_DOMAIN: the agents' mail domain (Message-IDs of sent email). */
  mailDomain?: string;
  /** The service's public base URL (the provider's status callbacks name it). */
  baseUrl?: string;
  /** How passwords are hashed (argon2id in src/infra). */
  passwords: PasswordHasher;
  /** Operators and self-service workspace creation (default: the first person operates; no self-service). */
  platform?: PlatformOptions;
  /** Which sign-in methods each workspace allows (default: the workspaces' login settings). */
  signInRules?: SignInRules;
  /** The OpenID Connect provider of single sign-on (absent: not configured). */
  sso?: SsoProvider;
  /** Where a paused run's continuation that failed past its result is reported (default: nowhere). */
  onApprovalError?: (err: unknown, approvalId: string) => void;
}

export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = {
  cpuMs: 5_000,
  memoryBytes: 64 * 1024 * 1024,
  maxOutputBytes: 5 * 1024 * 1024,
  wallMs: 30_000,
};
