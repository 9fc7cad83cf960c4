import type {
  ActivityEntry,
  Agent,
  ApiKey,
  Document,
  DocumentExposure,
  HttpEndpoint,
  McpTool,
  Member,
  MemberToken,
  Message,
  ModelConfig,
  Secret,
  Team,
  Webhook,
  Workspace,
} from '../../domain/model.js';
import { pathShape } from '../../domain/entries/entry.schemas.js';

// Explicit row ↔ entity mappings, one pair per table. jsonb values are written as JSON text so
// that arrays are not mistaken for PostgreSQL arrays by the driver.

type Row = Record<string, any>;
export interface Mapping<T> {
  table: string;
  toRow(e: T): Row;
  fromRow(r: Row): T;
}

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
// Both drivers (pg and PGlite) return jsonb already parsed; a string here is a JSON string value.
const parseJson = <T>(v: unknown): T => v as T;
const date = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
const dateOrNull = (v: unknown): Date | null => (v == null ? null : date(v));
const numOrNull = (v: unknown): number | null => (v == null ? null : Number(v));

export const workspaces: Mapping<Workspace> = {
  table: 'workspaces',
  toRow: (e) => ({
    id: e.id,
    name: e.name,
    settings: json(e.settings),
    daily_credit_limit: e.dailyCreditLimit,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    name: r.name,
    settings: parseJson(r.settings),
    dailyCreditLimit: numOrNull(r.daily_credit_limit),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};

export const teams: Mapping<Team> = {
  table: 'teams',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    name: e.name,
    daily_credit_limit: e.dailyCreditLimit,
    created_at: e.createdAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    dailyCreditLimit: numOrNull(r.daily_credit_limit),
    createdAt: date(r.created_at),
  }),
};

export const members: Mapping<Member> = {
  table: 'members',
  toRow: (e) => ({ id: e.id, workspace_id: e.workspaceId, email: e.email, name: e.name, role: e.role, created_at: e.createdAt }),
  fromRow: (r) => ({ id: r.id, workspaceId: r.workspace_id, email: r.email, name: r.name, role: r.role, createdAt: date(r.created_at) }),
};

export const memberTokens: Mapping<MemberToken> = {
  table: 'member_tokens',
  toRow: (e) => ({
    id: e.id,
    member_id: e.memberId,
    name: e.name,
    token_hash: e.tokenHash,
    prefix: e.prefix,
    last4: e.last4,
    created_at: e.createdAt,
    last_used_at: e.lastUsedAt,
    revoked_at: e.revokedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    memberId: r.member_id,
    name: r.name,
    tokenHash: r.token_hash,
    prefix: r.prefix,
    last4: r.last4,
    createdAt: date(r.created_at),
    lastUsedAt: dateOrNull(r.last_used_at),
    revokedAt: dateOrNull(r.revoked_at),
  }),
};

export const agents: Mapping<Agent> = {
  table: 'agents',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    team_id: e.teamId,
    created_by: e.createdBy,
    name: e.name,
    description: e.description,
    instructions: e.instructions,
    default_model: e.defaultModel,
    visibility: e.visibility,
    allow_workspace_keys: e.allowWorkspaceKeys,
    surfaces: json(e.surfaces),
    cors: json(e.cors),
    capabilities: json(e.capabilities),
    guardrails: json(e.guardrails),
    daily_credit_limit: e.dailyCreditLimit,
    max_concurrent_requests: e.maxConcurrentRequests,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    teamId: r.team_id ?? null,
    createdBy: r.created_by ?? null,
    name: r.name,
    description: r.description,
    instructions: r.instructions,
    defaultModel: r.default_model ?? null,
    visibility: r.visibility,
    allowWorkspaceKeys: Boolean(r.allow_workspace_keys),
    surfaces: parseJson(r.surfaces),
    cors: parseJson(r.cors),
    capabilities: parseJson(r.capabilities),
    guardrails: parseJson(r.guardrails),
    dailyCreditLimit: numOrNull(r.daily_credit_limit),
    maxConcurrentRequests: numOrNull(r.max_concurrent_requests),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};

export const apiKeys: Mapping<ApiKey> = {
  table: 'api_keys',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    agent_id: e.agentId,
    kind: e.kind,
    name: e.name,
    key_hash: e.keyHash,
    prefix: e.prefix,
    last4: e.last4,
    scopes: json(e.scopes),
    created_by: e.createdBy,
    created_at: e.createdAt,
    last_used_at: e.lastUsedAt,
    revoked_at: e.revokedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    agentId: r.agent_id ?? null,
    kind: r.kind,
    name: r.name,
    keyHash: r.key_hash,
    prefix: r.prefix,
    last4: r.last4,
    scopes: parseJson(r.scopes),
    createdBy: r.created_by ?? null,
    createdAt: date(r.created_at),
    lastUsedAt: dateOrNull(r.last_used_at),
    revokedAt: dateOrNull(r.revoked_at),
  }),
};

export const httpEndpoints: Mapping<HttpEndpoint> = {
  table: 'http_endpoints',
  toRow: (e) => ({
    id: e.id,
    agent_id: e.agentId,
    path: e.path,
    path_shape: pathShape(e.path),
    methods: json(e.methods),
    handler_kind: e.handler.kind,
    handler_body: e.handler.body,
    model_override: e.modelOverride,
    description: e.description,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    agentId: r.agent_id,
    path: r.path,
    methods: parseJson(r.methods),
    handler: { kind: r.handler_kind, body: r.handler_body },
    modelOverride: r.model_override ?? null,
    description: r.description,
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};

export const mcpTools: Mapping<McpTool> = {
  table: 'mcp_tools',
  toRow: (e) => ({
    id: e.id,
    agent_id: e.agentId,
    name: e.name,
    description: e.description,
    handler_kind: e.handler.kind,
    handler_body: e.handler.body,
    model_override: e.modelOverride,
    input_schema: e.inputSchema == null ? null : json(e.inputSchema),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    agentId: r.agent_id,
    name: r.name,
    description: r.description,
    handler: { kind: r.handler_kind, body: r.handler_body },
    modelOverride: r.model_override ?? null,
    inputSchema: r.input_schema == null ? null : parseJson(r.input_schema),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};

export const webhooks: Mapping<Webhook> = {
  table: 'webhooks',
  toRow: (e) => ({
    id: e.id,
    agent_id: e.agentId,
    integration: e.integration,
    handler_kind: e.handler.kind,
    handler_body: e.handler.body,
    model_override: e.modelOverride,
    signature_scheme: e.signature?.scheme ?? null,
    signature_secret_name: e.signature?.secretName ?? null,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    agentId: r.agent_id,
    integration: r.integration,
    handler: { kind: r.handler_kind, body: r.handler_body },
    modelOverride: r.model_override ?? null,
    signature: r.signature_scheme ? { scheme: r.signature_scheme, secretName: r.signature_secret_name } : null,
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};

export const documents: Mapping<Document> = {
  table: 'documents',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    agent_id: e.agentId,
    name: e.name,
    description: e.description,
    kind: e.kind,
    content: e.content,
    fields: json(e.fields),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    agentId: r.agent_id,
    name: r.name,
    description: r.description,
    kind: r.kind,
    content: r.content,
    fields: parseJson(r.fields),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};

export const exposures: Mapping<DocumentExposure> = {
  table: 'document_exposures',
  toRow: (e) => ({
    id: e.id,
    agent_id: e.agentId,
    document_id: e.documentId,
    can_read: e.read,
    can_write: e.write,
    created_at: e.createdAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    agentId: r.agent_id,
    documentId: r.document_id,
    read: Boolean(r.can_read),
    write: Boolean(r.can_write),
    createdAt: date(r.created_at),
  }),
};

export const secrets: Mapping<Secret> = {
  table: 'secrets',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    name: e.name,
    kind: e.kind,
    ciphertext: e.ciphertext,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    kind: r.kind,
    ciphertext: r.ciphertext,
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};

export const models: Mapping<ModelConfig> = {
  table: 'models',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    name: e.name,
    provider: e.provider,
    model: e.model,
    base_url: e.baseUrl,
    api_key_secret: e.apiKeySecret,
    input_price_per_million: e.inputPricePerMillion,
    output_price_per_million: e.outputPricePerMillion,
    is_default: e.isDefault,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    provider: r.provider,
    model: r.model,
    baseUrl: r.base_url ?? null,
    apiKeySecret: r.api_key_secret ?? null,
    inputPricePerMillion: Number(r.input_price_per_million),
    outputPricePerMillion: Number(r.output_price_per_million),
    isDefault: Boolean(r.is_default),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};

export const messages: Mapping<Message> = {
  table: 'messages',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    agent_id: e.agentId,
    direction: e.direction,
    channel: e.channel,
    from_address: e.from,
    to_address: e.to,
    subject: e.subject,
    body: e.body,
    sent_at: e.sentAt,
    created_at: e.createdAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    agentId: r.agent_id,
    direction: r.direction,
    channel: r.channel,
    from: r.from_address,
    to: r.to_address,
    subject: r.subject ?? null,
    body: r.body,
    sentAt: date(r.sent_at),
    createdAt: date(r.created_at),
  }),
};

export const activity: Mapping<ActivityEntry> = {
  table: 'activity_log',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    agent_id: e.agentId,
    kind: e.kind,
    surface: e.surface,
    entry: e.entry,
    method: e.method,
    path: e.path,
    status: e.status,
    request_headers: json(e.requestHeaders),
    request_body: json(e.requestBody),
    response: json(e.response),
    truncated: e.truncated,
    credits: e.credits,
    duration_ms: e.durationMs,
    key_id: e.keyId,
    run_id: e.runId,
    error: e.error,
    logs: json(e.logs),
    created_at: e.createdAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    agentId: r.agent_id,
    kind: r.kind,
    surface: r.surface,
    entry: r.entry ?? null,
    method: r.method ?? null,
    path: r.path ?? null,
    status: numOrNull(r.status),
    requestHeaders: r.request_headers == null ? null : parseJson(r.request_headers),
    requestBody: r.request_body == null ? null : parseJson(r.request_body),
    response: r.response == null ? null : parseJson(r.response),
    truncated: Boolean(r.truncated),
    credits: Number(r.credits),
    durationMs: numOrNull(r.duration_ms),
    keyId: r.key_id ?? null,
    runId: r.run_id ?? null,
    error: r.error ?? null,
    logs: r.logs == null ? null : parseJson(r.logs),
    createdAt: date(r.created_at),
  }),
};
