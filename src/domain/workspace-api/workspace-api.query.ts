import { z } from 'zod';
import { Invalid } from '../errors.js';
import { SURFACES } from '../core/surface.entities.js';

// The Workspace API's query parameters, validated from the raw query strings (the response schemas
// are in workspace-api.schemas.ts; the OpenAPI description is generated from both).

// ---------------------------------------------------------------------------------------------
// Query parameters (values arrive as strings; a repeated parameter arrives as an array → invalid)

const DIGITS = /^[0-9]+$/;

/** An integer query parameter: only plain digits count ("1.5", "1e2", " 5", "0x10" are refused). */
function intParam(min: number, max: number, def: number, description: string) {
  const message = `must be an integer from ${min} to ${max}`;
  return z
    .preprocess(
      (v) => (typeof v === 'string' && DIGITS.test(v) ? Number(v) : v),
      z
        .number({ error: message })
        .int({ error: message })
        .min(min, { error: message })
        .max(max, { error: message })
        .default(def),
    )
    .meta({ description: `${description} Integer from ${min} to ${max}; default ${def}.` });
}

function enumParam<const T extends readonly [string, ...string[]]>(values: T, description: string) {
  const shown = values.length === 2 ? `${values[0]} or ${values[1]}` : `one of ${values.join(', ')}`;
  return z
    .enum(values, { error: `must be ${shown}` })
    .optional()
    .meta({ description });
}

/** An instant as an ISO 8601 date (midnight UTC) or date-time with `Z` or an offset. */
function instantParam(description: string) {
  return z
    .union([z.iso.date(), z.iso.datetime({ offset: true })], {
      error: 'must be an ISO 8601 date or date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z',
    })
    .optional()
    .meta({ description: `${description} ISO 8601 date (midnight UTC) or date-time with Z or an offset.` });
}

const paging = {
  pageSize: intParam(1, 200, 50, 'Items per page.'),
  // Capped so that (page - 1) × pageSize stays an exact integer everywhere; pages past the end are empty anyway.
  page: intParam(1, 1_000_000_000, 1, 'Page number, the first page is 1; a page past the end is an empty list.'),
};

/** Query of GET /workspaceapi/agents. */
export const agentsQuery = z.object({
  includeOverview: z.enum(['true', 'false'], { error: 'must be true or false' }).optional().meta({
    description: "true adds each agent's `overview` (read in a fixed number of queries); the way to enumerate agents.",
  }),
});

/** Query of GET /workspaceapi/agents/{agentId}/messages. */
export const messagesQuery = z.object({
  ...paging,
  direction: enumParam(['inbound', 'outbound'] as const, 'Only messages of this direction.'),
  channel: enumParam(['email', 'sms'] as const, 'Only messages of this channel.'),
  since: instantParam('Only messages sent strictly after this instant.'),
  until: instantParam('Only messages sent strictly before this instant.'),
});

/** Query of GET /workspaceapi/agents/{agentId}/activity. */
export const activityQuery = z.object({
  ...paging,
  surface: enumParam(SURFACES, 'Only entries of this surface.'),
  kind: enumParam(
    ['request', 'run'] as const,
    'Only entries of this kind (`request`: a call answered on a surface; `run`: a later processing attempt, e.g. of a webhook delivery).',
  ),
  since: instantParam('Only entries created strictly after this instant.'),
  until: instantParam('Only entries created strictly before this instant.'),
  includeProtocol: z.enum(['true', 'false'], { error: 'must be true or false' }).optional().meta({
    description:
      'true lists protocol traffic too (entries with `protocol`: an MCP initialize, notifications, the stream probe); left out by default.',
  }),
});

/** Query of GET /workspaceapi/agents/{agentId}/usage. */
export const usageQuery = z.object({ days: intParam(1, 366, 30, 'Number of UTC days to report, ending today.') });

/** Path parameters of the per-agent endpoints. */
export const agentPath = z.object({ agentId: z.string().meta({ description: 'Agent id.' }) });

/** Query of the endpoints that take no parameters (overview, one agent). */
export const noQuery = z.object({});

/**
 * Parses a raw query object. On failure throws one Invalid whose message names every invalid
 * parameter, in the order the schema declares them, then every unknown one with the parameters the
 * endpoint takes (an unknown parameter is refused: `?limit=5` must not silently mean the default).
 */
export function parseQuery<S extends z.ZodObject>(schema: S, query: unknown): z.output<S> {
  const raw = (query ?? {}) as Record<string, unknown>;
  const known = Object.keys(schema.shape);
  const unknown = Object.keys(raw).filter((name) => !known.includes(name));
  const result = schema.safeParse(raw);
  if (result.success && unknown.length === 0) return result.data;
  const problems = new Map<string, string>();
  for (const issue of result.success ? [] : result.error.issues) {
    const name = String(issue.path[0] ?? 'query');
    if (!problems.has(name)) problems.set(name, `${name} ${issue.message}`);
  }
  if (unknown.length > 0) {
    const takes = known.length ? `its parameters are ${known.join(', ')}` : 'it takes none';
    const names = unknown.map((n) => JSON.stringify(n)).join(', ');
    problems.set(
      unknown.join(','),
      `${names} ${unknown.length === 1 ? 'is not a parameter' : 'are not parameters'} of this endpoint (${takes})`,
    );
  }
  throw new Invalid(`Invalid query parameters: ${[...problems.values()].join('; ')}`, [...problems.keys()].join(','));
}
