import type { RunInput } from './run.types.js';

/** The text a prompt handler sees as the user turn, and guardrails check. */
export function userTurn(input: RunInput): string {
  const body = input.body;
  if (
    input.surface === 'WIDGET' &&
    body &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    typeof body.message === 'string'
  )
    return body.message;
  // An MCP tool's arguments (also an A2A skill's data): the text itself under the default schema
  // ({input}), else the arguments as JSON. An A2A chat message is its text, a string body.
  if (input.surface === 'MCP' || (input.surface === 'A2A' && typeof body !== 'string')) {
    const only =
      body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 1
        ? body.input
        : undefined;
    return typeof only === 'string' ? only : JSON.stringify(body, null, 2);
  }
  // A text message or an email: the prompt answers its text (a script sees the sender and ids too).
  if (
    (input.surface === 'SMS' || input.surface === 'EMAIL') &&
    body &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    typeof body.text === 'string'
  )
    return body.text;
  // A webhook's event often shows only in a header (X-GitHub-Event, Stripe's in the body): the prompt sees them.
  const webhook = input.surface === 'WEBHOOKS';
  if (typeof body === 'string' && !webhook) return body;
  const request: Record<string, unknown> = { method: input.method, path: input.path };
  if (Object.keys(input.params).length) request.params = input.params;
  if (Object.keys(input.query).length) request.query = input.query;
  if (webhook) request.headers = input.headers;
  request.body = body;
  return JSON.stringify(request, null, 2);
}
