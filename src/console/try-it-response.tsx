import { Accordion, Alert, Badge, Code, Group, Paper, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { LoadingState } from './states.js';
import { clockTime } from './format.js';
import { headerOf, jsonErrorAt, retryText, type TryItResult } from './try-it-fetch.js';
import type { TryItKey } from './try-it-key.js';

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

export function pretty(value: unknown): string {
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
            Credits:{' '}
            {outcome.credits === undefined
              ? pending
                ? '…'
                : '—'
              : outcome.credits === null
                ? 'not reported'
                : outcome.credits}
            {outcome.creditsFrom ? ` (${outcome.creditsFrom})` : ''}
          </Text>
        </Group>
        <Group gap="md">
          {outcome.runId ? <Text size="xs">Run {outcome.runId}</Text> : null}
          {requestId ? <Text size="xs">Request {requestId}</Text> : null}
        </Group>
        {problem ? (
          <Alert
            variant="outline"
            color="red.9"
            role="alert"
            title={REASONS[result.status] ?? `HTTP ${result.status}`}
            data-testid="try-it-problem"
          >
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
export function KeyNote({ current, problem }: { current: TryItKey | null; problem: string | null }) {
  if (problem)
    return (
      <Alert variant="outline" color="red.9" role="alert" title="No Try-it key">
        {problem}
      </Alert>
    );
  return (
    <Text size="xs" c="dimmed">
      {current
        ? `Calls use the key “${current.name}” (${current.prefix}…${current.last4}). It stops working at ${clockTime(current.expiresAt)}, an hour after it was made, even if you close this tab; signing out ends it at once.`
        : 'The first call creates a key for this console session: it stops working an hour later, even if you close this tab, and at once when you sign out. The API Keys tab lists it under "Show keys made by Try it and the CLI".'}
    </Text>
  );
}

/** A send, its abort on unmount, and its outcome (growing while a stream arrives). */
export function useSend() {
  const [outcome, setOutcome] = useState<TryItOutcome | null>(null);
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);
  const run = useCallback(
    async (fn: (signal: AbortSignal, progress: (o: TryItOutcome) => void) => Promise<TryItOutcome>) => {
      abort.current?.abort();
      const controller = new AbortController();
      abort.current = controller;
      setPending(true);
      setFailure(null);
      setOutcome(null);
      try {
        setOutcome(await fn(controller.signal, setOutcome));
      } catch (err) {
        if (!controller.signal.aborted)
          setFailure(err instanceof Error && err.message ? err.message : 'The service could not be reached.');
      } finally {
        if (abort.current === controller) setPending(false);
      }
    },
    [],
  );
  return { outcome, pending, failure, run, setOutcome };
}

export function Failure({ message }: { message: string | null }) {
  return message ? (
    <Alert variant="outline" color="red.9" role="alert" title="The request could not be sent">
      {message}
    </Alert>
  ) : null;
}

/** A Try it section: its title, its form (`children`), then the send's failure and response, if `sent` is given. */
export function TryItFrame({
  title,
  sent,
  children,
}: {
  title: string;
  sent?: { outcome: TryItOutcome | null; pending: boolean; failure: string | null };
  children: ReactNode;
}) {
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Stack gap="sm">
        <Title order={3} size="h4">
          {title}
        </Title>
        {children}
        {sent ? (
          <>
            <Failure message={sent.failure} />
            <TryItResponse outcome={sent.outcome} pending={sent.pending} />
          </>
        ) : null}
      </Stack>
    </Paper>
  );
}

/** A JSON text field's parse error, or null (an empty text is allowed when `optional`). */
export function jsonProblem(text: string, optional = false): string | null {
  if (optional && !text.trim()) return null;
  const e = jsonErrorAt(text);
  return e ? `${e.line ? `Line ${e.line}, column ${e.column}: ` : ''}${e.message}` : null;
}

/** A monospaced JSON text field (a request body, a tool's arguments) with its parse error. */
export function JsonTextarea({
  label,
  value,
  onChange,
  error,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error: string | null;
}) {
  return (
    <Textarea
      label={label}
      autosize
      minRows={3}
      maxRows={12}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error}
      styles={{ input: { fontFamily: 'ui-monospace, monospace' } }}
    />
  );
}
