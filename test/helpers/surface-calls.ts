import { gqlOk, h } from './harness.js';

// Small clients for the agent surfaces of the shared harness service, and the GraphQL set-up
// those tests repeat: an agent key, an HTTP endpoint, a document and its exposure, the activity log.

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: any;
}

/** Sends a request to a started service (the harness one unless `baseUrl` is given). */
export async function call(
  method: string,
  path: string,
  opts: {
    key?: string;
    bearer?: string;
    json?: unknown;
    raw?: string | Buffer;
    type?: string;
    headers?: Record<string, string>;
    baseUrl?: string;
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key !== undefined) headers['x-agent-access-key'] = opts.key;
  if (opts.bearer !== undefined) headers.authorization = `Bearer ${opts.bearer}`;
  let body: string | Buffer | undefined;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] = opts.type ?? 'application/json';
  } else if (opts.raw !== undefined) {
    body = opts.raw;
    headers['content-type'] = opts.type ?? 'application/json';
  }
  const res = await fetch(`${opts.baseUrl ?? h().url}${path}`, { method, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const httpApiPath = (agentId: string, path: string) => `/agents/${agentId}/api/${path}`;
export const documentPath = (agentId: string, documentId: string, op = '') =>
  `/agents/${agentId}/documents/${documentId}${op ? `/data/${op}` : ''}`;

export async function createAgentKey(token: string, agentId: string): Promise<string> {
  const d = await gqlOk(token, 'mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "test") { key } }', {
    a: agentId,
  });
  return d.createAgentApiKey.key as string;
}

/** Adds an HTTP API endpoint; `handler` is `{script}` or `{prompt}`. */
export async function addHttpEndpoint(token: string, agentId: string, input: Record<string, unknown>): Promise<string> {
  const d = await gqlOk(
    token,
    'mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }',
    { a: agentId, i: input },
  );
  return d.addHttpEndpoint.id as string;
}

export async function createDocument(token: string, agentId: string, input: Record<string, unknown>): Promise<string> {
  const d = await gqlOk(
    token,
    'mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }',
    { a: agentId, i: input },
  );
  return d.createDocument.id as string;
}

export async function exposeDocument(
  token: string,
  agentId: string,
  documentId: string,
  read = true,
  write = true,
): Promise<void> {
  await gqlOk(
    token,
    'mutation($a: ID!, $d: ID!, $r: Boolean, $w: Boolean) { exposeDocument(agentId: $a, documentId: $d, read: $r, write: $w) { id } }',
    {
      a: agentId,
      d: documentId,
      r: read,
      w: write,
    },
  );
}

export interface ActivityNode {
  surface: string;
  entry: string | null;
  status: number | null;
  credits: number;
  runId: string | null;
  error: string | null;
  response: unknown;
}

/** The agent's activity entries, newest first, once the buffered log has been written. */
export async function activityOf(token: string, agentId: string): Promise<ActivityNode[]> {
  await h().service.services.activityLog.flush();
  const d = await gqlOk(
    token,
    'query($a: ID!) { agent(id: $a) { activity(first: 100) { nodes { surface entry status credits runId error response } } } }',
    { a: agentId },
  );
  return d.agent.activity.nodes as ActivityNode[];
}
