import { Accordion, Alert, Badge, Button, Code, Group, Paper, Select, Stack, Switch, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useClient, useMutation, useQuery } from 'urql';
import { messageOf } from './errors.js';
import { graphql } from './graphql.js';
import { headerOf, jsonErrorAt, retryText, sendTryIt, type TryItResult } from './try-it-fetch.js';
import { LoadingState } from './states.js';

// "Try it" on the HTTP API, MCP and Chat widget tabs: the real surface, called from the browser
// with a short-lived key the console creates for its session (createTryItKey: labelled, one hour,
// revoked at sign-out). The key stays in memory (and, for the widget preview, in a cookie of the
// preview's path); it is never shown.

const CreateTryItKey = graphql(`
  mutation CreateTryItKey($agentId: ID!) {
    createTryItKey(agentId: $agentId) { key apiKey { id name prefix last4 expiresAt } }
  }
`);

const TryItTargets = graphql(`
  query TryItTargets($id: ID!) {
    agent(id: $id) {
      id
      httpEndpoints { id path methods handler { kind } inputSchema }
      mcpTools { id name inputSchema }
    }
  }
`);

const ActivityCredits = graphql(`
  query TryItActivity($id: ID!, $surface: Surface) {
    agent(id: $id) { id activity(first: 20, surface: $surface) { nodes { id requestId runId credits } } }
  }
`);

export interface TryItKey {
  key: string;
  name: string;
  prefix: string;
  last4: string;
  expiresAt: string;
}

// One key per agent for this page's life; the server keeps one per session and agent.
const keys = new Map<string, TryItKey>();

/**
 * The session's Try-it key for an agent: `get()` returns the one in memory while it has more than a
 * minute left, else creates one; `get(true)` always creates one (after a 401: revoked elsewhere).
 */
export function useTryItKey(agentId: string) {
  const [, create] = useMutation(CreateTryItKey);
  const [current, setCurrent] = useState<TryItKey | null>(keys.get(agentId) ?? null);
  const [problem, setProblem] = useState<string | null>(null);
  const get = useCallback(
    async (fresh = false): Promise<{ key: TryItKey; cached: boolean }> => {
      const held = keys.get(agentId);
      if (!fresh && held && Date.parse(held.expiresAt) - Date.now() > 60_000) return { key: held, cached: true };
      const r = await create({ agentId });
      if (r.error || !r.data) {
        const message = r.error ? messageOf(r.error) : 'No key was created';
        setProblem(message);
        throw new Error(message);
      }
      const made = { key: r.data.createTryItKey.key, ...r.data.createTryItKey.apiKey, expiresAt: String(r.data.createTryItKey.apiKey.expiresAt) };
      keys.set(agentId, made);
      setCurrent(made);
      setProblem(null);
      return { key: made, cached: false };
    },
    [agentId, create],
  );
  return { current, problem, get };
}

/** Sends with the Try-it key; a 401 with a key from memory (revoked meanwhile) is sent once more with a new key. */
async function withKey(get: ReturnType<typeof useTryItKey>['get'], send: (key: string) => Promise<TryItResult>): Promise<TryItResult> {
  const { key, cached } = await get();
  const first = await send(key.key);
  if (first.status !== 401 || !cached) return first;
  return send((await get(true)).key.key);
}

/** Credits and run id of a request from the activity log (by its X-Request-Id), for surfaces whose answer does not say them. */
function useActivityLookup(agentId: string) {
  const client = useClient();
  return useCallback(
    async (requestId: string | undefined, surface: 'HTTP_API' | 'MCP' | 'WIDGET'): Promise<{ credits: number; runId: string | null } | null> => {
      if (!requestId) return null;
      for (let i = 0; i < 8; i++) {
        const r = await client.query(ActivityCredits, { id: agentId, surface }, { requestPolicy: 'network-only' }).toPromise();
        const mine = r.data?.agent.activity.nodes.filter((n) => n.requestId === requestId) ?? [];
        if (mine.length) return { credits: mine.reduce((s, n) => s + n.credits, 0), runId: mine.find((n) => n.runId)?.runId ?? null };
        await new Promise((res) => setTimeout(res, 250));
      }
      return null;
    },
    [agentId, client],
  );
}

/** What a surface said about a refusal: `{"error", "reason"}` and Retry-After. */
function problemOf(result: TryItResult): { error: string; reason?: string; retry: string | null } | null {
  if (result.status < 400) return null;
  const body = (result.json ?? {}) as { error?: unknown; reason?: unknown };
  return {
    error: typeof body.error === 'string' ? body.error : result.text.slice(0, 500) || result.statusText,
    ...(typeof body.reason === 'string' ? { reason: body.reason } : {}),
    retry: retryText(headerOf(result, 'retry-after')),
  };
}

const REASONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized — no valid key',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  413: 'Body too large',
  415: 'Unsupported media type',
  429: 'Too many requests — a limit was hit',
  500: 'The run failed',
};

function pretty(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

export interface TryItOutcome {
  result: TryItResult;
  /** The answer in words (the output, the streamed text, the tool result). */
  answer?: string | undefined;
  credits?: number | null | undefined;
  runId?: string | null | undefined;
  /** Said when the answer was read from the activity log. */
  creditsFrom?: string | undefined;
}

/**
 * A Try-it response: status and reason, the refusal's error, reason and retry time, the answer
 * (growing while a stream arrives), credits, run and request ids, the events, headers and body.
 * Test hooks: `data-testid` try-it-status, try-it-problem, try-it-answer, try-it-credits,
 * try-it-events; the region is named "Response".
 */
export function TryItResponse({ outcome, pending }: { outcome: TryItOutcome | null; pending: boolean }) {
  if (!outcome) return pending ? <LoadingState label="Waiting for the answer…" /> : null;
  const { result } = outcome;
  const problem = problemOf(result);
  const ok = result.status < 400;
  const requestId = headerOf(result, 'x-request-id');
  return (
    <Paper withBorder p="sm" component="section" aria-label="Response">
      <Stack gap="xs">
        <Group gap="sm">
          <Badge color={ok ? 'teal.9' : 'red.9'} size="lg" data-testid="try-it-status">
            {result.status} {result.statusText || REASONS[result.status] || ''}
          </Badge>
          <Text size="sm">{result.durationMs} ms</Text>
          {pending && result.streamed ? <Text size="sm">Streaming…</Text> : null}
          <Text size="sm" data-testid="try-it-credits">
            Credits: {outcome.credits === undefined ? (pending ? '…' : '—') : outcome.credits === null ? 'not reported' : outcome.credits}
            {outcome.creditsFrom ? ` (${outcome.creditsFrom})` : ''}
          </Text>
        </Group>
        <Group gap="md">
          {outcome.runId ? <Text size="xs">Run {outcome.runId}</Text> : null}
          {requestId ? <Text size="xs">Request {requestId}</Text> : null}
        </Group>
        {problem ? (
          <Alert variant="outline" color="red.9" role="alert" title={REASONS[result.status] ?? `HTTP ${result.status}`} data-testid="try-it-problem">
            <Stack gap={4}>
              <Text size="sm">{problem.error}</Text>
              {problem.reason ? <Text size="sm">Reason: {problem.reason}</Text> : null}
              {problem.retry ? <Text size="sm">{problem.retry}</Text> : null}
            </Stack>
          </Alert>
        ) : null}
        {outcome.answer !== undefined ? (
          <div>
            <Text size="sm" fw={600}>
              Answer
            </Text>
            <Code block data-testid="try-it-answer" aria-live="polite">
              {outcome.answer}
            </Code>
          </div>
        ) : null}
        <Accordion multiple variant="contained" defaultValue={result.streamed ? ['events'] : []}>
          {result.streamed ? (
            <Accordion.Item value="events">
              <Accordion.Control>Events as they arrived ({result.events.length})</Accordion.Control>
              <Accordion.Panel>
                <Code block data-testid="try-it-events">
                  {result.events.map((e) => `event: ${e.event}\ndata: ${e.data}`).join('\n\n')}
                </Code>
              </Accordion.Panel>
            </Accordion.Item>
          ) : null}
          <Accordion.Item value="headers">
            <Accordion.Control>Headers ({result.headers.length})</Accordion.Control>
            <Accordion.Panel>
              <Table fz="xs" aria-label="Response headers">
                <Table.Tbody>
                  {result.headers.map(([k, v]) => (
                    <Table.Tr key={k}>
                      <Table.Th scope="row">{k}</Table.Th>
                      <Table.Td style={{ wordBreak: 'break-all' }}>{v}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Accordion.Panel>
          </Accordion.Item>
          {!result.streamed ? (
            <Accordion.Item value="body">
              <Accordion.Control>Body</Accordion.Control>
              <Accordion.Panel>
                <Code block data-testid="try-it-body">
                  {result.json !== undefined ? pretty(result.json) : result.text || '(empty)'}
                </Code>
              </Accordion.Panel>
            </Accordion.Item>
          ) : null}
        </Accordion>
      </Stack>
    </Paper>
  );
}

/** Which key the calls use (never the key itself). */
function KeyNote({ current, problem }: { current: TryItKey | null; problem: string | null }) {
  if (problem)
    return (
      <Alert variant="outline" color="red.9" role="alert" title="No Try-it key">
        {problem}
      </Alert>
    );
  return (
    <Text size="xs" c="dimmed">
      {current
        ? `Calls use the key “${current.name}” (${current.prefix}…${current.last4}), valid until ${new Date(current.expiresAt).toLocaleTimeString()} and revoked when you sign out.`
        : 'The first call creates a key for this console session: it expires after an hour and is revoked when you sign out.'}
    </Text>
  );
}

/** A send, its abort on unmount, and its outcome (growing while a stream arrives). */
function useSend() {
  const [outcome, setOutcome] = useState<TryItOutcome | null>(null);
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);
  const run = useCallback(async (fn: (signal: AbortSignal, progress: (o: TryItOutcome) => void) => Promise<TryItOutcome>) => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setPending(true);
    setFailure(null);
    setOutcome(null);
    try {
      setOutcome(await fn(controller.signal, setOutcome));
    } catch (err) {
      if (!controller.signal.aborted) setFailure(err instanceof Error && err.message ? err.message : 'The service could not be reached.');
    } finally {
      if (abort.current === controller) setPending(false);
    }
  }, []);
  return { outcome, pending, failure, run, setOutcome };
}

function Failure({ message }: { message: string | null }) {
  return message ? (
    <Alert variant="outline" color="red.9" role="alert" title="The request could not be sent">
      {message}
    </Alert>
  ) : null;
}

function TryItFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Stack gap="sm">
        <Title order={3} size="h4">
          {title}
        </Title>
        {children}
      </Stack>
    </Paper>
  );
}

/** A JSON text field's parse error, or null (an empty text is allowed when `optional`). */
function jsonProblem(text: string, optional = false): string | null {
  if (optional && !text.trim()) return null;
  const e = jsonErrorAt(text);
  return e ? `${e.line ? `Line ${e.line}, column ${e.column}: ` : ''}${e.message}` : null;
}

interface EndpointTarget {
  id: string;
  path: string;
  methods: readonly string[];
  handler: { kind: 'PROMPT' | 'SCRIPT' };
}

/** Try it for the HTTP API: an endpoint, a method, the path (parameters filled in), a JSON body, and streaming or not. */
export function HttpTryIt({ agentId, endpoints }: { agentId: string; endpoints: readonly EndpointTarget[] }) {
  const { current, problem, get } = useTryItKey(agentId);
  const lookup = useActivityLookup(agentId);
  const [endpointId, setEndpointId] = useState<string | null>(endpoints[0]?.id ?? null);
  const endpoint = endpoints.find((e) => e.id === endpointId) ?? endpoints[0];
  const [method, setMethod] = useState<string>(endpoint?.methods[0] ?? 'POST');
  const [path, setPath] = useState(endpoint?.path ?? '');
  const [body, setBody] = useState('{}');
  const [stream, setStream] = useState(false);
  const { outcome, pending, failure, run } = useSend();
  useEffect(() => {
    if (!endpoint) return;
    setPath(endpoint.path);
    setMethod((m) => (endpoint.methods.includes(m) ? m : endpoint.methods[0] ?? 'POST'));
    // Only when another endpoint is chosen.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [endpoint?.id]);
  if (!endpoint) return <TryItFrame title="Try it">{<Text size="sm">Add an endpoint to try it.</Text>}</TryItFrame>;
  const hasBody = method !== 'GET' && method !== 'DELETE';
  const bodyError = hasBody ? jsonProblem(body, true) : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (bodyError) return;
    void run(async (signal, progress) => {
      const url = `/agents/${encodeURIComponent(agentId)}/api/${path.replace(/^\/+/, '')}`;
      let events: TryItResult['events'] = [];
      const result = await withKey(get, (key) =>
        sendTryIt({
          url,
          method,
          headers: { 'x-agent-access-key': key, accept: stream ? 'text/event-stream' : 'application/json', ...(hasBody ? { 'content-type': 'application/json' } : {}) },
          body: hasBody ? body.trim() || '{}' : undefined,
          signal,
          onProgress: (partial) => {
            events = partial.events;
            progress({ result: partial, answer: events.filter((e) => e.event === 'delta').map((e) => (e.json as { text?: string })?.text ?? '').join('') });
          },
        }),
      );
      const outcome = httpOutcome(result);
      // A failed run's answer names no credits: shown at once, then completed from the activity log.
      if (outcome.credits !== null || result.status < 500) return outcome;
      progress(outcome);
      const found = await lookup(headerOf(result, 'x-request-id'), 'HTTP_API');
      return found ? { ...outcome, credits: found.credits, runId: outcome.runId ?? found.runId, creditsFrom: 'from the activity log' } : outcome;
    });
  };
  return (
    <TryItFrame title="Try it">
      <form onSubmit={submit} noValidate aria-label="Try the HTTP API">
        <Stack gap="sm">
          <Group grow align="flex-start" wrap="wrap">
            <Select
              label="Endpoint"
              data={endpoints.map((e) => ({ value: e.id, label: `${e.path} (${e.handler.kind === 'SCRIPT' ? 'script' : 'prompt'})` }))}
              value={endpoint.id}
              onChange={(v) => setEndpointId(v)}
              allowDeselect={false}
              miw={180}
            />
            <Select label="Method" data={[...endpoint.methods]} value={method} onChange={(v) => v && setMethod(v)} allowDeselect={false} miw={100} />
          </Group>
          <TextInput label="Path" description={`/agents/${agentId}/api/… — fill in {parameters}; a query string may follow`} value={path} onChange={(e) => setPath(e.currentTarget.value)} />
          {hasBody ? (
            <Textarea
              label="Body (JSON)"
              autosize
              minRows={3}
              maxRows={12}
              value={body}
              onChange={(e) => setBody(e.currentTarget.value)}
              error={bodyError}
              styles={{ input: { fontFamily: 'ui-monospace, monospace' } }}
            />
          ) : null}
          <Switch label="Stream the answer (Accept: text/event-stream)" checked={stream} onChange={(e) => setStream(e.currentTarget.checked)} />
          <Group>
            <Button type="submit" loading={pending}>
              Send request
            </Button>
          </Group>
          <KeyNote current={current} problem={problem} />
        </Stack>
      </form>
      <Failure message={failure} />
      <TryItResponse outcome={outcome} pending={pending} />
    </TryItFrame>
  );
}

function httpOutcome(result: TryItResult): TryItOutcome {
  const runId = headerOf(result, 'x-run-id') ?? null;
  if (result.streamed) {
    const done = result.events.find((e) => e.event === 'done')?.json as { output?: unknown; credits?: number; runId?: string } | undefined;
    const deltas = result.events.filter((e) => e.event === 'delta').map((e) => (e.json as { text?: string })?.text ?? '');
    const error = result.events.find((e) => e.event === 'error')?.json as { error?: string } | undefined;
    return {
      result,
      answer: done?.output !== undefined ? pretty(done.output) : error?.error ? `Error: ${error.error}` : deltas.join(''),
      credits: done?.credits ?? null,
      runId: done?.runId ?? runId,
    };
  }
  const body = result.json as { output?: unknown; credits?: unknown; runId?: unknown } | undefined;
  if (result.status < 400 && body && 'output' in body) {
    return { result, answer: pretty(body.output), credits: typeof body.credits === 'number' ? body.credits : null, runId: typeof body.runId === 'string' ? body.runId : runId };
  }
  // A refusal before any run (4xx) costs nothing.
  return { result, runId, credits: result.status < 500 ? 0 : null };
}

interface ToolTarget {
  id: string;
  name: string;
  inputSchema: unknown;
}

/** A JSON object with the tool's declared properties, as a starting point for its arguments. */
function argumentsSkeleton(schema: unknown): string {
  const props = (schema as { properties?: Record<string, { type?: string }> } | null)?.properties ?? {};
  const value = Object.fromEntries(Object.entries(props).map(([k, p]) => [k, p.type === 'number' || p.type === 'integer' ? 0 : p.type === 'boolean' ? false : p.type === 'object' ? {} : p.type === 'array' ? [] : '']));
  return JSON.stringify(value, null, 2);
}

const MCP_PROTOCOL = '2025-11-25';

/** The JSON-RPC answer of an MCP response (JSON, or the last message of an event stream). */
function rpcAnswer(result: TryItResult): { result?: unknown; error?: { code: number; message: string } } | undefined {
  if (!result.streamed) return result.json as { result?: unknown } | undefined;
  const messages = result.events.map((e) => e.json as { id?: unknown; result?: unknown; error?: { code: number; message: string } } | undefined);
  return messages.reverse().find((m) => m && ('result' in m || 'error' in m));
}

/** Try it for the MCP server: list the tools, call one with JSON arguments (the JSON-RPC exchange over Streamable HTTP). */
export function McpTryIt({ agentId, tools }: { agentId: string; tools: readonly ToolTarget[] }) {
  const { current, problem, get } = useTryItKey(agentId);
  const lookup = useActivityLookup(agentId);
  const [toolId, setToolId] = useState<string | null>(tools[0]?.id ?? null);
  const tool = tools.find((t) => t.id === toolId) ?? tools[0];
  const [args, setArgs] = useState(() => argumentsSkeleton(tool?.inputSchema));
  const { outcome, pending, failure, run } = useSend();
  const nextId = useRef(1);
  useEffect(() => {
    setArgs(argumentsSkeleton(tool?.inputSchema));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tool?.id]);
  const argsError = jsonProblem(args);
  const rpc = (method: string, params: unknown) =>
    run(async (signal, progress) => {
      const id = nextId.current++;
      const result = await withKey(get, (key) =>
        sendTryIt({
          url: `/agents/${encodeURIComponent(agentId)}/mcp`,
          method: 'POST',
          headers: { 'x-agent-access-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MCP_PROTOCOL },
          body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
          signal,
          onProgress: (partial) => progress({ result: partial }),
        }),
      );
      const answer = rpcAnswer(result);
      let text: string | undefined;
      if (answer?.error) text = `JSON-RPC error ${answer.error.code}: ${answer.error.message}`;
      else if (method === 'tools/list') text = ((answer?.result as { tools?: { name: string; description?: string }[] })?.tools ?? []).map((t) => `${t.name} — ${t.description ?? ''}`).join('\n') || '(no tools)';
      else if (answer?.result) {
        const r = answer.result as { content?: { type: string; text?: string }[]; structuredContent?: unknown; isError?: boolean };
        text = `${r.isError ? 'Tool error: ' : ''}${(r.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n')}`;
      }
      if (result.status === 403 && /Origin/.test(result.text)) {
        text = `This page's origin (${location.origin}) may not call the MCP server: the MCP server refuses browsers from origins the agent's CORS settings do not allow. Allow platform apps or add ${location.origin} as a custom origin on the HTTP API tab.`;
      }
      if (method !== 'tools/call') return { result, answer: text };
      if (result.status >= 400 && result.status < 500) return { result, answer: text, credits: 0 };
      // MCP results name no credits: shown at once, then completed from the activity log.
      progress({ result, answer: text });
      const found = await lookup(headerOf(result, 'x-request-id'), 'MCP');
      return { result, answer: text, ...(found ? { credits: found.credits, runId: found.runId, creditsFrom: 'from the activity log' } : { credits: null }) };
    });
  return (
    <TryItFrame title="Try it">
      <Stack gap="sm">
        <Group>
          <Button variant="light" onClick={() => void rpc('tools/list', {})} loading={pending}>
            List tools
          </Button>
        </Group>
        {tool ? (
          <form
            noValidate
            aria-label="Call a tool"
            onSubmit={(e) => {
              e.preventDefault();
              if (!argsError) void rpc('tools/call', { name: tool.name, arguments: JSON.parse(args) as unknown });
            }}
          >
            <Stack gap="sm">
              <Select label="Tool" data={tools.map((t) => ({ value: t.id, label: t.name }))} value={tool.id} onChange={setToolId} allowDeselect={false} />
              <Textarea
                label="Arguments (JSON)"
                autosize
                minRows={3}
                maxRows={12}
                value={args}
                onChange={(e) => setArgs(e.currentTarget.value)}
                error={argsError}
                styles={{ input: { fontFamily: 'ui-monospace, monospace' } }}
              />
              <Group>
                <Button type="submit" loading={pending}>
                  Call tool
                </Button>
              </Group>
            </Stack>
          </form>
        ) : (
          <Text size="sm">Add a tool to call it.</Text>
        )}
        <KeyNote current={current} problem={problem} />
      </Stack>
      <Failure message={failure} />
      <TryItResponse outcome={outcome} pending={pending} />
    </TryItFrame>
  );
}

/** Try it for the chat the widget uses: a message, the answer streamed as it arrives, the conversation kept for the next one. */
export function ChatTryIt({ agentId }: { agentId: string }) {
  const { current, problem, get } = useTryItKey(agentId);
  const [message, setMessage] = useState('');
  const [conversationId, setConversationId] = useState<string | null>(null);
  const { outcome, pending, failure, run } = useSend();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = message.trim();
    if (!text) return;
    void run(async (signal, progress) => {
      const answerOf = (r: TryItResult) => r.events.filter((e) => e.event === 'delta').map((e) => (e.json as { text?: string })?.text ?? '').join('');
      const result = await withKey(get, (key) =>
        sendTryIt({
          url: `/agents/${encodeURIComponent(agentId)}/chat`,
          method: 'POST',
          headers: { 'x-agent-access-key': key, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify(conversationId ? { message: text, conversationId } : { message: text }),
          signal,
          onProgress: (partial) => {
            const start = partial.events.find((e) => e.event === 'start')?.json as { conversationId?: string } | undefined;
            if (start?.conversationId) setConversationId(start.conversationId);
            progress({ result: partial, answer: answerOf(partial), runId: (partial.events.find((e) => e.event === 'start')?.json as { runId?: string })?.runId });
          },
        }),
      );
      const start = result.events.find((e) => e.event === 'start')?.json as { conversationId?: string; runId?: string } | undefined;
      const done = result.events.find((e) => e.event === 'done')?.json as { output?: string; credits?: number } | undefined;
      const error = result.events.find((e) => e.event === 'error')?.json as { error?: string } | undefined;
      if (result.status === 404 && conversationId) setConversationId(null);
      return {
        result,
        ...(result.streamed ? { answer: done?.output ?? (error?.error ? `Error: ${error.error}` : answerOf(result)) } : {}),
        credits: done?.credits ?? null,
        runId: start?.runId ?? headerOf(result, 'x-run-id') ?? null,
      };
    });
    setMessage('');
  };
  return (
    <TryItFrame title="Try it">
      <form onSubmit={submit} noValidate aria-label="Try the chat">
        <Stack gap="sm">
          <Textarea label="Message" autosize minRows={2} maxRows={8} value={message} onChange={(e) => setMessage(e.currentTarget.value)} />
          <Group>
            <Button type="submit" loading={pending} disabled={!message.trim()}>
              Send message
            </Button>
            <Button variant="default" onClick={() => setConversationId(null)} disabled={!conversationId || pending}>
              New conversation
            </Button>
            <Text size="xs" c="dimmed">
              {conversationId ? `Conversation ${conversationId}` : 'A new conversation'}
            </Text>
          </Group>
          <KeyNote current={current} problem={problem} />
        </Stack>
      </form>
      <Failure message={failure} />
      <TryItResponse outcome={outcome} pending={pending} />
    </TryItFrame>
  );
}

/**
 * Try it for one surface of an agent, loading the endpoints or tools it needs: what other tabs
 * (Limits, Activity) embed to call the agent. `surface` HTTP_API, MCP or WIDGET (the chat).
 */
export function TryIt({ agentId, surface }: { agentId: string; surface: 'HTTP_API' | 'MCP' | 'WIDGET' }) {
  const context = useMemo(() => ({ additionalTypenames: ['HttpEndpoint', 'McpTool'] }), []);
  const [{ data, error, fetching }] = useQuery({ query: TryItTargets, variables: { id: agentId }, context, pause: surface === 'WIDGET' });
  if (surface === 'WIDGET') return <ChatTryIt agentId={agentId} />;
  if (fetching && !data) return <LoadingState label="Loading Try it…" />;
  if (error && !data)
    return (
      <Alert variant="outline" color="red.9" role="alert">
        {messageOf(error)}
      </Alert>
    );
  if (!data) return null;
  return surface === 'HTTP_API' ? <HttpTryIt agentId={agentId} endpoints={data.agent.httpEndpoints} /> : <McpTryIt agentId={agentId} tools={data.agent.mcpTools} />;
}

/** Puts the Try-it key where the widget preview's proxy reads it: a cookie of that agent's preview path only. */
export async function armWidgetPreview(agentId: string, get: ReturnType<typeof useTryItKey>['get']): Promise<void> {
  const { key } = await get();
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  const seconds = Math.max(60, Math.floor((Date.parse(key.expiresAt) - Date.now()) / 1000));
  document.cookie = `aes_try_it=${encodeURIComponent(key.key)}; Path=/console/widget-preview/${encodeURIComponent(agentId)}; Max-Age=${seconds}; SameSite=Strict${secure}`;
}
