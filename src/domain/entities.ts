import type { KeyScope, Role } from './principal.js';

// Entities of the service as the domain sees them. Repositories map rows to these explicitly.

export const SURFACES = ['HTTP_API', 'DOCUMENT_API', 'MCP', 'WIDGET', 'WEBHOOKS'] as const;
export type Surface = (typeof SURFACES)[number];

export interface SurfaceSetting {
  enabled: boolean;
  activityLogging: boolean;
}
export type Surfaces = Record<Surface, SurfaceSetting>;

export interface CorsSettings {
  allowPlatformApps: boolean;
  customOrigins: string[];
}

export interface Capabilities {
  endpointManagement: boolean;
  documents: boolean;
}

export interface Guardrails {
  blockedInputPatterns: string[];
  redactOutputPatterns: string[];
  redactPresets: RedactPreset[];
  maxInputChars: number | null;
  maxOutputTokens: number | null;
  maxToolSteps: number;
  maxCreditsPerRun: number | null;
}
export const REDACT_PRESETS = ['email', 'phone', 'creditCard'] as const;
export type RedactPreset = (typeof REDACT_PRESETS)[number];

export const VISIBILITIES = ['WORKSPACE', 'PRIVATE'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export interface Workspace {
  id: string;
  name: string;
  settings: WorkspaceSettings;
  dailyCreditLimit: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The groups the Workspace API overview returns. */
export interface WorkspaceSettings {
  featureFlags: Record<string, boolean>;
  creditDefaults: { agentDailyCreditLimit: number | null; maxConcurrentRequests: number | null; scriptRunCredits: number };
  accountRules: Record<string, unknown>;
  dataProcessing: { dpaAccepted: boolean; dpaAcceptedAt: string | null; subprocessors: string[]; region: string | null };
  loginSettings: Record<string, unknown>;
  valueCapture: Record<string, unknown>;
  tags: string[];
  activityRetentionDays: number;
}

export interface Team {
  id: string;
  workspaceId: string;
  name: string;
  dailyCreditLimit: number | null;
  createdAt: Date;
}

export interface Member {
  id: string;
  workspaceId: string;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
}

export interface MemberToken {
  id: string;
  memberId: string;
  name: string;
  tokenHash: string;
  prefix: string;
  last4: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A console sign-in: a member token exchanged for a cookie; only the cookie value's hash is kept. */
export interface ConsoleSession {
  id: string;
  memberId: string;
  /** The member token it was made from: the session ends when that token is revoked or deleted. */
  tokenId: string;
  sessionHash: string;
  createdAt: Date;
  lastSeenAt: Date;
  revokedAt: Date | null;
}

export interface Agent {
  id: string;
  workspaceId: string;
  teamId: string | null;
  createdBy: string | null;
  name: string;
  description: string;
  instructions: string;
  defaultModel: string | null;
  visibility: Visibility;
  allowWorkspaceKeys: boolean;
  surfaces: Surfaces;
  cors: CorsSettings;
  capabilities: Capabilities;
  guardrails: Guardrails;
  dailyCreditLimit: number | null;
  maxConcurrentRequests: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export const API_KEY_KINDS = ['AGENT', 'WORKSPACE'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];
export interface ApiKey {
  id: string;
  workspaceId: string;
  agentId: string | null;
  kind: ApiKeyKind;
  name: string;
  keyHash: string;
  prefix: string;
  last4: string;
  scopes: KeyScope[];
  createdBy: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** When the key stops working (refused from this instant on); null: it works until revoked. */
  expiresAt: Date | null;
  /** The console session a "Try it" key belongs to: the session's end revokes the key. */
  consoleSessionId?: string | null;
}

export const HANDLER_KINDS = ['prompt', 'script'] as const;
export type HandlerKind = (typeof HANDLER_KINDS)[number];
export interface Handler {
  kind: HandlerKind;
  /** The prompt text or the script source. */
  body: string;
}

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface HttpEndpoint {
  id: string;
  agentId: string;
  path: string;
  methods: HttpMethod[];
  handler: Handler;
  modelOverride: string | null;
  description: string;
  /** JSON Schema of the request body; when set, a body that does not match is refused (400). */
  inputSchema: Record<string, unknown> | null;
  /** JSON Schema of the answer's `output`, for the agent's OpenAPI document. */
  outputSchema: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface McpTool {
  id: string;
  agentId: string;
  name: string;
  description: string;
  handler: Handler;
  modelOverride: string | null;
  inputSchema: Record<string, unknown> | null;
  /** JSON Schema of the tool's result; when set, results carry `structuredContent` checked against it. */
  outputSchema: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

export const SIGNATURE_SCHEMES = ['HMAC_SHA256', 'GITHUB', 'STRIPE', 'SLACK', 'STANDARD_WEBHOOKS'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

export interface Webhook {
  id: string;
  agentId: string;
  integration: string;
  handler: Handler;
  modelOverride: string | null;
  signature: { scheme: SignatureScheme; secretName: string } | null;
  /** The largest body accepted; null: 64 KiB without a signature, 1 MiB with one (see webhooks/body-limit.ts). */
  maxBodyBytes: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export const DELIVERY_STATUSES = ['PENDING', 'RUNNING', 'DONE', 'FAILED'] as const;
/** PENDING: waiting for its (next) attempt; RUNNING: an instance holds it under a lease; DONE: ran; FAILED: gave up. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A callback a webhook integration received: stored before the sender's 200, then run from the queue. */
export interface WebhookDelivery {
  id: string;
  agentId: string;
  webhookId: string;
  integration: string;
  /** The sender's own id of the delivery, when it sends one. */
  senderDeliveryId: string | null;
  /** Set while the sender id de-duplicates redeliveries (24 h). */
  dedupeKey: string | null;
  /** The delivery this one replays. */
  replayOf: string | null;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  /** Request headers without credential or signature values. */
  headers: Record<string, string>;
  /** The body exactly as received; empty once dropped (`bodyDroppedAt`). */
  rawBody: Buffer;
  /** When housekeeping dropped the body of this finished delivery (its replay window had passed); it can no longer be replayed. */
  bodyDroppedAt: Date | null;
  status: DeliveryStatus;
  attempts: number;
  failures: number;
  lastError: string | null;
  runId: string | null;
  nextAttemptAt: Date;
  lockedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

/**
 * A delivery without its body, and the body's size: what listings, claims and stores return. A body
 * (up to 1 MiB) is read alone, for the one delivery that is run, replayed or shown.
 */
export interface WebhookDeliverySummary extends Omit<WebhookDelivery, 'rawBody'> {
  /** Size of the body as received, in bytes. */
  bodyBytes: number;
}

/** A chat between a website visitor and an agent (the widget surface); any instance can continue it. */
export interface Conversation {
  id: string;
  agentId: string;
  /** The visitor id the customer's proxy sent when the conversation started; only that visitor may continue or read it. */
  visitorId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const CHAT_ROLES = ['user', 'assistant'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export interface ChatTurn {
  id: string;
  conversationId: string;
  role: ChatRole;
  content: string;
  runId: string | null;
  createdAt: Date;
}

export const DOCUMENT_KINDS = ['TEXT', 'DATABASE'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
export const FIELD_TYPES = ['STRING', 'NUMBER', 'BOOLEAN', 'DATETIME', 'JSON'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export interface FieldDef {
  name: string;
  type: FieldType;
  required: boolean;
}

export interface Document {
  id: string;
  workspaceId: string;
  agentId: string;
  name: string;
  description: string;
  kind: DocumentKind;
  content: string;
  fields: FieldDef[];
  createdAt: Date;
  updatedAt: Date;
}

export interface DocumentExposure {
  id: string;
  agentId: string;
  documentId: string;
  read: boolean;
  write: boolean;
  createdAt: Date;
}

export const SECRET_KINDS = ['WEBHOOK_SIGNING_SECRET', 'MODEL_API_KEY', 'GENERIC'] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export interface Secret {
  id: string;
  workspaceId: string;
  name: string;
  kind: SecretKind;
  /** Encrypted value; only the secrets service decrypts it. */
  ciphertext: string;
  createdAt: Date;
  updatedAt: Date;
}

export const MODEL_PROVIDERS = ['openai', 'anthropic', 'openai-compatible'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export interface ModelConfig {
  id: string;
  workspaceId: string;
  name: string;
  provider: ModelProvider;
  model: string;
  baseUrl: string | null;
  apiKeySecret: string | null;
  inputPricePerMillion: number;
  outputPricePerMillion: number;
  isDefault: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const MESSAGE_DIRECTIONS = ['inbound', 'outbound'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];
export const MESSAGE_CHANNELS = ['email', 'sms'] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];
export interface Message {
  id: string;
  workspaceId: string;
  agentId: string;
  direction: MessageDirection;
  channel: MessageChannel;
  from: string;
  to: string;
  subject: string | null;
  body: string;
  sentAt: Date;
  createdAt: Date;
}

export const ACTIVITY_KINDS = ['request', 'run'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];
export interface ActivityEntry {
  id: string;
  workspaceId: string;
  agentId: string;
  kind: ActivityKind;
  surface: Surface;
  entry: string | null;
  method: string | null;
  path: string | null;
  status: number | null;
  requestHeaders: Record<string, string> | null;
  requestBody: unknown;
  response: unknown;
  truncated: boolean;
  credits: number;
  durationMs: number | null;
  keyId: string | null;
  runId: string | null;
  /** The X-Request-Id of the request (sent by the caller or generated), also in the service's log line. */
  requestId: string | null;
  error: string | null;
  logs: unknown;
  createdAt: Date;
}

/** A change to an agent's configuration made by a member (an applied manifest): who, when and what. */
export interface AgentChange {
  id: string;
  workspaceId: string;
  agentId: string;
  /** The member who made it (null once that member is deleted). */
  memberId: string | null;
  /** How it was made: `manifest`. */
  source: string;
  /** What changed: each change's action and its path in the manifest. */
  changes: { action: string; path: string }[];
  createdAt: Date;
}

export interface DailyUsage {
  agentId: string;
  day: string;
  credits: number;
  runs: number;
}
