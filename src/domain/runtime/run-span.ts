import type { Agent } from '../core/agent.entities.js';
import type { AttrValue } from '../tracing/span.types.js';
import type { RunEntry, RunFacts, RunInput, RunResult } from './run.types.js';
import type { Span } from '../tracing/call-trace.js';
import type { ModelMessage, ToolDefinition } from '../models/language-model.ports.js';
import type { Json } from '../json.js';
import { redactJson, redactText } from './guardrails.js';

// The attributes of a run's spans, after the OpenTelemetry GenAI semantic conventions
// (docs/tracing.md): `invoke_agent {agent}` per run. The service's own facts use the `aes.` prefix.

type Attrs = Record<string, AttrValue | null | undefined>;

/**
 * The run span's attributes when it starts: the agent, the surface, the entry, the conversation.
 * Its `aes.run.id` is set once it is admitted.
 */
export function runSpanAttributes(agent: Agent, entry: RunEntry, input: RunInput): Attrs {
  return {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.id': agent.id,
    'gen_ai.agent.name': agent.name,
    'gen_ai.conversation.id': conversationOf(input),
    'aes.surface': input.surface,
    'aes.entry': entry.name,
    'aes.handler': entry.handler.kind,
    'aes.workspace.id': agent.workspaceId,
  };
}

/** The run span's attributes when it has ended: credits, tokens, the model and how it ended. */
export function settledRunAttributes(result: RunResult | undefined, facts: RunFacts): Attrs {
  return {
    'aes.credits': facts.credits,
    'aes.run.outcome': facts.outcome,
    'gen_ai.usage.input_tokens': result?.model ? result.usage.inputTokens : null,
    'gen_ai.usage.output_tokens': result?.model ? result.usage.outputTokens : null,
    'gen_ai.request.model': result?.model ?? null,
  };
}

/** A chat's or an A2A context's id, when the surface names one (as its path parameter). */
function conversationOf(input: RunInput): string | null {
  return input.params.conversationId ?? input.params.contextId ?? null;
}

/**
 * A tool whose calls are `execute_tool {name}` spans of the run (GenAI conventions), keeping the
 * input and output for the timeline, redacted by the output guardrails as the log's bodies are.
 */
export function tracedTool(t: ToolDefinition, g: Agent['guardrails'], run: Span | undefined): ToolDefinition {
  const execute = t.execute;
  if (!run || !execute) return t;
  return {
    ...t,
    execute: async (args, signal, callId) => {
      const span = run.child(`execute_tool ${t.name}`, {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': t.name,
          'gen_ai.tool.type': 'function',
          'gen_ai.tool.call.id': callId,
        },
      });
      span.detail({ input: redactJson(g, args as Json) });
      try {
        const output = await execute(args, signal, callId);
        span.detail({ output: redactJson(g, output) });
        return output;
      } catch (err) {
        span.fail(err);
        throw err;
      } finally {
        span.end();
      }
    },
  };
}

/**
 * The conversation as the GenAI conventions' `gen_ai.input.messages` (exported only when message
 * content capture is on), redacted by the agent's output guardrails as the log's bodies are.
 */
export function inputMessages(g: Agent['guardrails'], messages: ModelMessage[]): string {
  return JSON.stringify(
    messages.map((m) => ({
      role: m.role,
      parts: [
        { type: 'text', content: redactText(g, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)) },
      ],
    })),
  );
}

/** The answer as `gen_ai.output.messages` (already redacted). */
export function outputMessages(text: string, finishReason: string): string {
  return JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: text }], finish_reason: finishReason }]);
}
