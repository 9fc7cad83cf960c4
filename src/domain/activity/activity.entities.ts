import type { Surface } from '../core/surface.entities.js';
import type { SpanRecord } from '../tracing/span.types.js';

// Entities of activity as the domain sees them. Repositories map rows to these explicitly.

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
  /** The OAuth client that made the call (an OAuth call only). */
  oauthClientId: string | null;
  /** The member whose approval the OAuth client called with (an OAuth call only). */
  grantedBy: string | null;
  runId: string | null;
  /** The X-Request-Id of the request (sent by the caller or generated), also in the service's log line. */
  requestId: string | null;
  error: string | null;
  logs: unknown;
  createdAt: Date;
  /**
   * Protocol traffic: an exchange the client's protocol makes around the calls (an MCP `initialize`,
   * a notification, the `GET /mcp` stream probe), not a call of its own. Lists leave it out unless asked.
   */
  protocol: boolean;
  /** The webhook delivery the entry received (its receipt) or processed (its runs). */
  deliveryId: string | null;
  /** The call's W3C trace id (the caller's when it sent a `traceparent`). */
  traceId?: string | null;
  /** The call's spans, oldest first (the console's run timeline); null when none were kept. */
  spans?: SpanRecord[] | null;
  /** Spans the call had past the bound (MAX_SPANS_PER_ENTRY), not kept. */
  spansDropped?: number;
}
