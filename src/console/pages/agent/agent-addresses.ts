// Every address an agent answers on, from what the Overview's query returns: one per surface that
// is on (and one per entry where each entry has its own), as a pure function (unit-tested).

export interface AddressFacts {
  id: string;
  surfaces: readonly { surface: string; enabled: boolean }[];
  httpEndpoints: readonly { path: string; methods: readonly string[] }[];
  webhooks: readonly { integration: string }[];
  documents: readonly { id: string; name: string }[];
  documentExposures: readonly { documentId: string }[];
  channels: readonly { kind: string; address: string }[];
}

export interface Address {
  /** What it is, e.g. "HTTP API: POST greet". */
  label: string;
  value: string;
  surface: string;
}

/** The agent's addresses on the surfaces that are on, in the order of the agent's tabs. */
export function agentAddresses(origin: string, a: AddressFacts): Address[] {
  const on = new Set(a.surfaces.filter((s) => s.enabled).map((s) => s.surface));
  const base = `${origin}/agents/${encodeURIComponent(a.id)}`;
  const out: Address[] = [];
  const add = (surface: string, label: string, value: string) => {
    if (on.has(surface)) out.push({ surface, label, value });
  };
  if (a.httpEndpoints.length === 0) add('HTTP_API', 'HTTP API (endpoints go under it)', `${base}/api/`);
  for (const e of a.httpEndpoints)
    add('HTTP_API', `HTTP API: ${e.methods.join(', ')} ${e.path}`, `${base}/api/${e.path}`);
  const names = new Map(a.documents.map((d) => [d.id, d.name]));
  for (const x of a.documentExposures)
    add(
      'DOCUMENT_API',
      `Document API: ${names.get(x.documentId) ?? x.documentId}`,
      `${base}/documents/${x.documentId}`,
    );
  add('MCP', 'MCP server', `${base}/mcp`);
  add('OPENAI', 'OpenAI-compatible API (base URL)', `${base}/v1`);
  add('WIDGET', 'Chat (for your proxy and the widget)', `${base}/chat`);
  for (const w of a.webhooks)
    add('WEBHOOKS', `Webhook: ${w.integration}`, `${base}/webhook/${encodeURIComponent(w.integration)}`);
  add('A2A', 'A2A agent card', `${base}/.well-known/agent-card.json`);
  add('A2A', 'A2A endpoint', `${base}/a2a`);
  for (const c of a.channels) {
    if (c.kind === 'EMAIL') add('EMAIL', 'Email address', c.address);
    else add('SMS', `SMS number (the provider posts to ${base}/sms)`, c.address);
  }
  return out;
}

/** The surfaces that are off, for a line under the addresses. */
export function surfacesOff(a: Pick<AddressFacts, 'surfaces'>): string[] {
  return a.surfaces.filter((s) => !s.enabled).map((s) => s.surface);
}
