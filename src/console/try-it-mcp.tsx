import { Button, Group, Select, Stack, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { headerOf, sendTryIt, type TryItResult } from './try-it-fetch.js';
import { useActivityLookup, useTryItKey, withKey } from './try-it-key.js';
import { JsonTextarea, jsonProblem, KeyNote, TryItFrame, useSend } from './try-it-response.js';

interface ToolTarget {
  id: string;
  name: string;
  inputSchema: unknown;
}

/** A JSON object with the tool's declared properties, as a starting point for its arguments. */
function argumentsSkeleton(schema: unknown): string {
  const props = (schema as { properties?: Record<string, { type?: string }> } | null)?.properties ?? {};
  const value = Object.fromEntries(
    Object.entries(props).map(([k, p]) => [
      k,
      p.type === 'number' || p.type === 'integer'
        ? 0
        : p.type === 'boolean'
          ? false
          : p.type === 'object'
            ? {}
            : p.type === 'array'
              ? []
              : '',
    ]),
  );
  return JSON.stringify(value, null, 2);
}

const MCP_PROTOCOL = '2025-11-25';

/** The JSON-RPC answer of an MCP response (JSON, or the last message of an event stream). */
function rpcAnswer(result: TryItResult): { result?: unknown; error?: { code: number; message: string } } | undefined {
  if (!result.streamed) return result.json as { result?: unknown } | undefined;
  const messages = result.events.map(
    (e) => e.json as { id?: unknown; result?: unknown; error?: { code: number; message: string } } | undefined,
  );
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
          headers: {
            'x-agent-access-key': key,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MCP_PROTOCOL,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
          signal,
          onProgress: (partial) => progress({ result: partial }),
        }),
      );
      const answer = rpcAnswer(result);
      let text: string | undefined;
      if (answer?.error) text = `JSON-RPC error ${answer.error.code}: ${answer.error.message}`;
      else if (method === 'tools/list')
        text =
          ((answer?.result as { tools?: { name: string; description?: string }[] })?.tools ?? [])
            .map((t) => `${t.name} — ${t.description ?? ''}`)
            .join('\n') || '(no tools)';
      else if (answer?.result) {
        const r = answer.result as {
          content?: { type: string; text?: string }[];
          structuredContent?: unknown;
          isError?: boolean;
        };
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
      return {
        result,
        answer: text,
        ...(found
          ? { credits: found.credits, runId: found.runId, creditsFrom: 'from the activity log' }
          : { credits: null }),
      };
    });
  return (
    <TryItFrame title="Try it" sent={{ outcome, pending, failure }}>
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
              <Select
                label="Tool"
                data={tools.map((t) => ({ value: t.id, label: t.name }))}
                value={tool.id}
                onChange={setToolId}
                allowDeselect={false}
              />
              <JsonTextarea label="Arguments (JSON)" value={args} onChange={setArgs} error={argsError} />
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
    </TryItFrame>
  );
}
