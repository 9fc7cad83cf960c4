import { z } from 'zod';
import type {
  ContentPart,
  ModelMessage,
  ResponseFormat,
  SamplingSettings,
  ToolCall,
} from '../../domain/models/language-model.ports.js';
import type { Dialogue } from '../../domain/runtime/run.types.js';
import {
  CallBook,
  clientTools,
  functionParameters,
  imagePart,
  invalidParam,
  jsonSchemaFormat,
  parseRequest,
  refuseUnsupported,
  toolChoiceOf,
} from './openai-input.js';

// Chat Completions (`POST …/chat/completions`) as OpenAI defines it, read into a dialogue for the
// run pipeline (its answers are in chat-completion-object.ts).

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imageUrlPart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string(), detail: z.string().optional() }),
});
const otherPart = z.object({ type: z.string() });
const userPart = z.union([textPart, imageUrlPart, otherPart]);
/** A content that is text: a string or text parts (a refusal part of an assistant turn reads as its text). */
const textContent = z.union([
  z.string(),
  z.array(z.union([textPart, z.object({ type: z.literal('refusal'), refusal: z.string() }), otherPart])),
]);

const toolCall = z.object({
  id: z.string().min(1).max(200),
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string().min(1).max(64), arguments: z.string() }),
});

const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: textContent }),
  z.object({ role: z.literal('developer'), content: textContent }),
  z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(userPart)]) }),
  z.object({ role: z.literal('assistant'), content: textContent.nullish(), tool_calls: z.array(toolCall).optional() }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string().min(1).max(200), content: textContent }),
  z.object({ role: z.literal('function') }),
]);

const tool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string(),
    description: z.string().max(10_000).optional(),
    parameters: functionParameters,
    strict: z.boolean().nullish(),
  }),
});

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().max(64).optional(),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

const request = z.object({
  model: z.string().max(200).optional(),
  messages: z.array(message).min(1, 'send at least one message'),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4, 'at most 4 stop sequences')]).nullish(),
  tools: z.array(tool).nullish(),
  tool_choice: toolChoice.nullish(),
  response_format: responseFormat.nullish(),
});

export type ChatCompletionRequest = z.output<typeof request>;

/** What a chat completion request asks of the run, and how its answer is framed. */
export interface ChatCompletionCall {
  dialogue: Dialogue;
  stream: boolean;
  includeUsage: boolean;
  /** The `model` the caller named (echoed back). */
  model: string | undefined;
  /** The parameters of the request's image parts, in order. */
  images: string[];
}

/**
 * Reads a Chat Completions request: parameters this API cannot honour are refused by name (`n` over
 * 1, log probabilities, audio); the messages become the dialogue (system and developer turns after
 * the agent's instructions, tool results named by their call). `ownToolNames`: the agent's tools,
 * which a client tool may not shadow.
 */
export function readChatCompletion(body: unknown, ownToolNames: readonly string[]): ChatCompletionCall {
  const raw = body as Record<string, unknown>;
  const req = parseRequest(request, body);
  refuseUnsupported(raw, [
    ['n', (v) => v !== 1, 'only one choice per request is supported (n: 1)'],
    ['logprobs', (v) => v !== false, 'log probabilities are not supported'],
    ['top_logprobs', () => true, 'log probabilities are not supported'],
    ['audio', () => true, 'audio output is not supported'],
    ['modalities', (v) => Array.isArray(v) && v.some((m) => m !== 'text'), 'only text output is supported'],
    ['functions', () => true, 'the legacy functions parameter is not supported; declare them in tools'],
    ['function_call', () => true, 'the legacy function_call parameter is not supported; use tool_choice'],
  ]);

  const system: string[] = [];
  const messages: ModelMessage[] = [];
  const calls = new CallBook();
  /** Where the request has image parts (refused by the service when the model takes none). */
  const images: string[] = [];
  req.messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(contentText(m.content, `${at}.content`));
        return;
      case 'user':
        messages.push({
          role: 'user',
          content: typeof m.content === 'string' ? m.content : userParts(m.content, images, `${at}.content`),
        });
        return;
      case 'assistant': {
        const toolCalls: ToolCall[] = (m.tool_calls ?? []).map((c) => ({
          id: c.id,
          name: c.function.name,
          arguments: c.function.arguments,
        }));
        calls.add(toolCalls);
        messages.push({
          role: 'assistant',
          content: m.content == null ? '' : contentText(m.content, `${at}.content`),
          ...(toolCalls.length ? { toolCalls } : {}),
        });
        return;
      }
      case 'tool':
        messages.push({
          role: 'tool',
          toolCallId: m.tool_call_id,
          toolName: calls.nameOf(m.tool_call_id, `${at}.tool_call_id`),
          content: contentText(m.content, `${at}.content`),
        });
        return;
      case 'function':
        throw invalidParam(
          `${at}.role`,
          "the legacy 'function' role is not supported; answer tool calls with role 'tool'",
        );
    }
  });

  const tools = clientTools(
    (req.tools ?? []).map((t) => t.function),
    (i) => `tools[${i}].function.name`,
    ownToolNames,
  );
  const settings: SamplingSettings = {};
  if (req.temperature != null) settings.temperature = req.temperature;
  if (req.top_p != null) settings.topP = req.top_p;
  if (req.stop != null) settings.stopSequences = typeof req.stop === 'string' ? [req.stop] : req.stop;
  const format = formatOf(req.response_format ?? undefined);
  if (format) settings.responseFormat = format;
  const choice =
    req.tool_choice == null
      ? undefined
      : typeof req.tool_choice === 'string'
        ? req.tool_choice
        : { name: req.tool_choice.function.name };
  const checkedChoice = toolChoiceOf(choice, tools, ownToolNames, 'tool_choice');
  if (checkedChoice !== undefined) settings.toolChoice = checkedChoice;

  const maxOutputTokens = req.max_completion_tokens ?? req.max_tokens ?? undefined;
  return {
    dialogue: {
      system: system.filter(Boolean).join('\n\n'),
      messages,
      clientTools: tools,
      settings,
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    },
    stream: req.stream === true,
    includeUsage: req.stream_options?.include_usage === true,
    model: req.model,
    images,
  };
}

function formatOf(f: z.output<typeof responseFormat> | undefined): ResponseFormat | undefined {
  if (!f || f.type === 'text') return undefined;
  if (f.type === 'json_object') return { type: 'json' };
  return jsonSchemaFormat(f.json_schema.name, f.json_schema.schema, 'response_format.json_schema.schema');
}

/** A text content: the string, or its text (and refusal) parts joined; any other part is refused. */
function contentText(content: z.output<typeof textContent>, param: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((p, j) => {
      if (p.type === 'text') return partText(p, 'text', `${param}[${j}]`);
      if (p.type === 'refusal') return partText(p, 'refusal', `${param}[${j}]`);
      throw invalidParam(`${param}[${j}].type`, `a part of type '${p.type}' is not supported here; send text`);
    })
    .join('');
}

function userParts(parts: z.output<typeof userPart>[], images: string[], param: string): ContentPart[] {
  return parts.map((p, j) => {
    if (p.type === 'text') return { type: 'text', text: partText(p, 'text', `${param}[${j}]`) };
    if (p.type === 'image_url') {
      const url = (p as { image_url?: { url?: unknown } }).image_url?.url;
      if (typeof url !== 'string')
        throw invalidParam(`${param}[${j}].image_url.url`, 'an image_url part needs image_url.url');
      return imagePart(url, images, `${param}[${j}].image_url`);
    }
    throw invalidParam(
      `${param}[${j}].type`,
      `a part of type '${p.type}' is not supported; send text or image_url parts`,
    );
  });
}

/** The text of a part of type `field` (`text`, `refusal`), which must be a string. */
function partText(p: object, field: string, param: string): string {
  const value = (p as Record<string, unknown>)[field];
  if (typeof value !== 'string')
    throw invalidParam(`${param}.${field}`, `a ${field} part needs its ${field} as a string`);
  return value;
}
