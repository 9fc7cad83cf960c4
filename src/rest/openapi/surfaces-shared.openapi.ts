import { z } from 'zod';

// The pieces the surface descriptions share: error bodies, refusals, the run result, credentials.

/** The body of every error answer. */
export const errorBody = z.object({ error: z.string() }).meta({ id: 'Error' });
const limitBody = z
  .object({
    error: z.string(),
    reason: z.enum(['daily_credit_limit', 'team_credit_limit', 'workspace_credit_limit', 'concurrency_limit']),
  })
  .meta({ id: 'LimitExceeded' });
export const runResponse = z
  .object({
    output: z.unknown().describe('The handler output: text (prompt) or any JSON (script)'),
    runId: z.string(),
    credits: z.number(),
  })
  .meta({ id: 'RunResult' });

/** A JSON response object of `schema`. */
export const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
/** The plain HTTP refusals the key-checked surfaces share. */
export const errors = {
  400: json(
    errorBody,
    'Malformed JSON, JSON nested more than 64 levels deep, invalid input, or input refused by the agent guardrails',
  ),
  401: json(
    errorBody,
    "The key was refused; `error` says which case: no key sent, key not recognised, key revoked, key of another agent, or a workspace key while the agent's allowWorkspaceKeys is off (updateAgent input.allowWorkspaceKeys turns it on)",
  ),
  403: json(errorBody, 'The surface is turned off for this agent, or the document lacks the permission'),
  404: json(errorBody, 'Unknown agent, path, or document not exposed'),
  413: json(errorBody, 'Body larger than 1 MiB'),
  415: json(errorBody, 'Body not sent as application/json'),
  429: {
    ...json(limitBody, 'A limit was hit; retry after Retry-After seconds'),
    headers: { 'Retry-After': { schema: { type: 'integer' as const }, description: 'Seconds to wait' } },
  },
};

export const agentId = z.string().describe('Agent id');
export const documentParams = z.object({ agentId, documentId: z.string().describe('Document id') });
export const security: Record<string, string[]>[] = [{ agentKey: [] }, { bearer: [] }];

/** `post` → `Post`: operationIds are camelCase, the method last where one operation exists per method. */
export const capitalized = (method: string) => method[0]!.toUpperCase() + method.slice(1);
