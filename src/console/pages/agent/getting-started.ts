// The getting-started checklist of an agent's Overview and its ready call, as pure functions of what
// the Overview's query returns (unit-tested in test/unit/console-getting-started.test.ts).

/** The steps of the checklist, in order. */
export type StepId = 'entry' | 'key' | 'call' | 'activity';

/** What the checklist is worked out from. */
export interface StartFacts {
  surfaces: readonly { surface: string; enabled: boolean }[];
  /** How many HTTP endpoints, MCP tools, webhooks, exposed documents and channels the agent has. */
  entries: number;
  keys: readonly { origin: string; revokedAt?: string | null; expiresAt?: string | null }[];
  /** When the newest entry of the agent's activity log was written; null: none yet. */
  lastCallAt: string | null;
  /** When this browser last showed the agent's Activity tab; null: never. */
  activitySeenAt: string | null;
  /** Whether this browser already saw the last step done (it stays done). */
  activityStepDone: boolean;
  now: number;
}

/** Surfaces that answer without an entry of their own: switching one on is a way to start. */
const ENTRYLESS = ['OPENAI', 'A2A'];

/** Keys made for Try it or by the CLI's calls do not count as a key a person made. */
export function madeByPerson(k: { origin: string }): boolean {
  return k.origin === 'PERSON';
}

/** Whether a key works now (neither revoked nor expired). */
export function keyWorks(k: { revokedAt?: string | null; expiresAt?: string | null }, now: number): boolean {
  return !k.revokedAt && !(k.expiresAt && new Date(k.expiresAt).getTime() <= now);
}

/** Which steps are done. */
export function stepsDone(f: StartFacts): Record<StepId, boolean> {
  const entry = f.entries > 0 || f.surfaces.some((s) => s.enabled && ENTRYLESS.includes(s.surface));
  const key = f.keys.some((k) => madeByPerson(k) && keyWorks(k, f.now));
  const call = f.lastCallAt !== null;
  const seen =
    f.activitySeenAt !== null &&
    f.lastCallAt !== null &&
    new Date(f.activitySeenAt).getTime() >= new Date(f.lastCallAt).getTime();
  return { entry, key, call, activity: call && (f.activityStepDone || seen) };
}

/** An endpoint of the HTTP API the ready call can use. */
export interface CallableEndpoint {
  path: string;
  methods: readonly string[];
  inputSchema?: unknown;
}

/** A path with each `{name}` parameter filled with an example value. */
export function examplePath(path: string): string {
  return path.replace(/\{([^}/]+)\}/g, (_, name: string) => `example-${name}`);
}

/** A body that fits a JSON Schema's declared properties (a simple example), or `{"message": "Hello"}`. */
export function exampleBody(schema: unknown): Record<string, unknown> {
  const props = (schema as { properties?: unknown } | null)?.properties;
  if (!props || typeof props !== 'object' || Array.isArray(props)) return { message: 'Hello' };
  const body: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(props as Record<string, { type?: unknown; enum?: unknown[] }>).slice(0, 20)) {
    const type = Array.isArray(s?.type) ? s.type[0] : s?.type;
    body[name] = Array.isArray(s?.enum)
      ? s.enum[0]
      : type === 'number' || type === 'integer'
        ? 1
        : type === 'boolean'
          ? true
          : type === 'array'
            ? []
            : type === 'object'
              ? {}
              : 'Hello';
  }
  return body;
}

/** A text in single quotes for a POSIX shell. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The placeholder of the key in a ready call when the key itself is not known here. */
export const KEY_PLACEHOLDER = '$AGENT_KEY';

/** What the ready call does: method, URL, headers and body (what `curl` is given). */
export interface ReadyCall {
  method: string;
  url: string;
  headers: [string, string][];
  body: string | null;
}

/**
 * The first call to make: the first HTTP endpoint (POST when it takes it, with an example body), or
 * the chat endpoint when the widget's surface is on and there is no endpoint; null: neither.
 */
export function readyCall(
  origin: string,
  agentId: string,
  endpoints: readonly CallableEndpoint[],
  chatOn: boolean,
  key: string | null,
): ReadyCall | null {
  const auth: [string, string] = ['Authorization', `Bearer ${key ?? KEY_PLACEHOLDER}`];
  const base = `${origin}/agents/${encodeURIComponent(agentId)}`;
  const endpoint = endpoints[0];
  if (endpoint) {
    const method = endpoint.methods.includes('POST') ? 'POST' : (endpoint.methods[0] ?? 'POST');
    const withBody = method !== 'GET' && method !== 'DELETE';
    const url = `${base}/api/${examplePath(endpoint.path).split('/').map(encodeURIComponent).join('/')}`;
    return withBody
      ? {
          method,
          url,
          headers: [auth, ['Content-Type', 'application/json']],
          body: JSON.stringify(exampleBody(endpoint.inputSchema)),
        }
      : { method, url, headers: [auth], body: null };
  }
  if (!chatOn) return null;
  return {
    method: 'POST',
    url: `${base}/chat`,
    headers: [auth, ['Accept', 'application/json'], ['Content-Type', 'application/json']],
    body: JSON.stringify({ message: 'Hello' }),
  };
}

/** The call as a `curl` command to paste into a shell (the key placeholder stays a shell variable). */
export function curlOf(call: ReadyCall): string {
  const header = ([name, value]: [string, string]) =>
    value.includes(KEY_PLACEHOLDER) ? `-H "${name}: ${value}"` : `-H ${shellQuote(`${name}: ${value}`)}`;
  const parts = [
    `curl${call.method === 'GET' ? '' : ` -X ${call.method}`} ${shellQuote(call.url)}`,
    ...call.headers.map(header),
    ...(call.body === null ? [] : [`-d ${shellQuote(call.body)}`]),
  ];
  return parts.join(' \\\n  ');
}
