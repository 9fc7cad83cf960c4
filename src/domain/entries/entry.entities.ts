// Entities of entries (HTTP endpoints, MCP tools, webhooks) as the domain sees them. Repositories
// map rows to these explicitly.

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
  /** The largest body accepted; null: 64 KiB without a signature, 1 MiB with one (see entries/body-limit.ts). */
  maxBodyBytes: number | null;
  createdAt: Date;
  updatedAt: Date;
}
