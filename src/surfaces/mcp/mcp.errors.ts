import type { CatalogueKey, Refusal } from '../../domain/error-catalogue.js';

/** JSON-RPC codes MCP answers with. */
const INVALID_PARAMS = -32602;
/** An implementation-defined server error: a refusal the service explains (as the A2A server answers a limit). */
const SERVER_ERROR = -32000;

/** How MCP answers a refusal: a JSON-RPC error, or a tool result with `isError` the model can read. */
export type McpFailure = McpRpcError | { kind: 'tool'; text: string };
/** A JSON-RPC error of the MCP server (thrown as the SDK's ProtocolError). */
export interface McpRpcError {
  kind: 'rpc';
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

const rpc = (code: number, message: string, data?: Record<string, unknown>): McpRpcError => ({
  kind: 'rpc',
  code,
  message,
  ...(data ? { data } : {}),
});
const withField = (r: Refusal) => rpc(INVALID_PARAMS, r.message, r.field ? { field: r.field } : undefined);
const tryAgain = (r: Refusal) => `${r.message} Try again in ${r.retryAfterSeconds} s.`;
const toolError = (r: Refusal): McpFailure => ({ kind: 'tool', text: r.message });
const retryLater = (r: Refusal): McpFailure => ({ kind: 'tool', text: tryAgain(r) });

/**
 * `tools/call`: an unknown tool is a JSON-RPC invalid-params error; arguments that fail the tool's
 * input schema are a tool error naming the field (MCP 2025-11-25, SEP-1303: the model reads it and
 * corrects its call, which a protocol error would hide from it); a refusal the service explains (a
 * limit met while the call was not prepared before dispatch, a busy sandbox) is a tool error the
 * model can read, saying when to try again.
 */
const TOOL_CALL: Record<CatalogueKey, (r: Refusal) => McpFailure> = {
  INVALID: toolError,
  UNAUTHENTICATED: toolError,
  FORBIDDEN: toolError,
  NOT_FOUND: (r) => rpc(INVALID_PARAMS, `Unknown tool: ${r.id ?? ''}`),
  METHOD_NOT_ALLOWED: toolError,
  CONFLICT: toolError,
  PAYLOAD_TOO_LARGE: toolError,
  UNSUPPORTED_MEDIA_TYPE: toolError,
  LIMIT_EXCEEDED: retryLater,
  RUN_FAILED: toolError,
  UNAVAILABLE: retryLater,
};

const serverError = (r: Refusal) => rpc(SERVER_ERROR, r.message);
const retryData = (r: Refusal) => rpc(SERVER_ERROR, tryAgain(r), { retryAfterSeconds: r.retryAfterSeconds });

/**
 * `resources/read` (a resource that is not there is the SDK's resource-not-found error, answered
 * before this table): a bad cursor is invalid params; a limit says when to try again; any other
 * refusal is a server error with its message.
 */
const RESOURCE_READ: Record<CatalogueKey, (r: Refusal) => McpRpcError> = {
  INVALID: withField,
  UNAUTHENTICATED: serverError,
  FORBIDDEN: serverError,
  NOT_FOUND: serverError,
  METHOD_NOT_ALLOWED: serverError,
  CONFLICT: serverError,
  PAYLOAD_TOO_LARGE: serverError,
  UNSUPPORTED_MEDIA_TYPE: serverError,
  LIMIT_EXCEEDED: retryData,
  RUN_FAILED: serverError,
  UNAVAILABLE: retryData,
};

/** A refusal of `tools/call` as MCP answers it. */
export function encodeMcpToolError(r: Refusal): McpFailure {
  return TOOL_CALL[r.key](r);
}

/** A refusal of `resources/read` as MCP answers it (always a JSON-RPC error). */
export function encodeMcpResourceError(r: Refusal): McpRpcError {
  return RESOURCE_READ[r.key](r);
}
