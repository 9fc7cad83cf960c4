import { Button, Group, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { headerOf, sendTryIt, type TryItResult } from './try-it-fetch.js';
import { useActivityLookup, useTryItKey, withKey } from './try-it-key.js';
import {
  JsonTextarea,
  jsonProblem,
  KeyNote,
  pretty,
  TryItFrame,
  useSend,
  type TryItOutcome,
} from './try-it-response.js';

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
    setMethod((m) => (endpoint.methods.includes(m) ? m : (endpoint.methods[0] ?? 'POST')));
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
          headers: {
            'x-agent-access-key': key,
            accept: stream ? 'text/event-stream' : 'application/json',
            ...(hasBody ? { 'content-type': 'application/json' } : {}),
          },
          body: hasBody ? body.trim() || '{}' : undefined,
          signal,
          onProgress: (partial) => {
            events = partial.events;
            progress({
              result: partial,
              answer: events
                .filter((e) => e.event === 'delta')
                .map((e) => (e.json as { text?: string })?.text ?? '')
                .join(''),
            });
          },
        }),
      );
      const outcome = httpOutcome(result);
      // A failed run's answer names no credits: shown at once, then completed from the activity log.
      if (outcome.credits !== null || result.status < 500) return outcome;
      progress(outcome);
      const found = await lookup(headerOf(result, 'x-request-id'), 'HTTP_API');
      return found
        ? {
            ...outcome,
            credits: found.credits,
            runId: outcome.runId ?? found.runId,
            creditsFrom: 'from the activity log',
          }
        : outcome;
    });
  };
  return (
    <TryItFrame title="Try it" sent={{ outcome, pending, failure }}>
      <form onSubmit={submit} noValidate aria-label="Try the HTTP API">
        <Stack gap="sm">
          <Group grow align="flex-start" wrap="wrap">
            <Select
              label="Endpoint"
              data={endpoints.map((e) => ({
                value: e.id,
                label: `${e.path} (${e.handler.kind === 'SCRIPT' ? 'script' : 'prompt'})`,
              }))}
              value={endpoint.id}
              onChange={(v) => setEndpointId(v)}
              allowDeselect={false}
              miw={180}
            />
            <Select
              label="Method"
              data={[...endpoint.methods]}
              value={method}
              onChange={(v) => v && setMethod(v)}
              allowDeselect={false}
              miw={100}
            />
          </Group>
          <TextInput
            label="Path"
            description={`/agents/${agentId}/api/… — fill in {parameters}; a query string may follow`}
            value={path}
            onChange={(e) => setPath(e.currentTarget.value)}
          />
          {hasBody ? <JsonTextarea label="Body (JSON)" value={body} onChange={setBody} error={bodyError} /> : null}
          <Switch
            label="Stream the answer (Accept: text/event-stream)"
            checked={stream}
            onChange={(e) => setStream(e.currentTarget.checked)}
          />
          <Group>
            <Button type="submit" loading={pending}>
              Send request
            </Button>
          </Group>
          <KeyNote current={current} problem={problem} />
        </Stack>
      </form>
    </TryItFrame>
  );
}

function httpOutcome(result: TryItResult): TryItOutcome {
  const runId = headerOf(result, 'x-run-id') ?? null;
  if (result.streamed) {
    const done = result.events.find((e) => e.event === 'done')?.json as
      { output?: unknown; credits?: number; runId?: string } | undefined;
    const deltas = result.events
      .filter((e) => e.event === 'delta')
      .map((e) => (e.json as { text?: string })?.text ?? '');
    const error = result.events.find((e) => e.event === 'error')?.json as { error?: string } | undefined;
    return {
      result,
      answer:
        done?.output !== undefined ? pretty(done.output) : error?.error ? `Error: ${error.error}` : deltas.join(''),
      credits: done?.credits ?? null,
      runId: done?.runId ?? runId,
    };
  }
  const body = result.json as { output?: unknown; credits?: unknown; runId?: unknown } | undefined;
  if (result.status < 400 && body && 'output' in body) {
    return {
      result,
      answer: pretty(body.output),
      credits: typeof body.credits === 'number' ? body.credits : null,
      runId: typeof body.runId === 'string' ? body.runId : runId,
    };
  }
  // A refusal before any run (4xx) costs nothing.
  return { result, runId, credits: result.status < 500 ? 0 : null };
}
