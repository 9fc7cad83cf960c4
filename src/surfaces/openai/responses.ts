import { z } from 'zod';
import type { Json } from '../../domain/json.js';
import type {
  ContentPart,
  ModelMessage,
  ResponseFormat,
  SamplingSettings,
} from '../../domain/models/language-model.ports.js';
import type { Dialogue } from '../../domain/runtime/run.types.js';
import {
  CallBook,
  clientTools,
  imagePart,
  invalidParam,
  jsonSchemaFormat,
  paramName,
  parseRequest,
  refuseUnsupported,
  telling,
  toolChoiceOf,
} from './openai-input.js';
import {
  functionCallItem,
  functionCallOutputItem,
  inputImage,
  messageItem,
  part,
  request,
} from './responses.schemas.js';

// Responses (`POST …/responses`) as OpenAI and the Open Responses specification agree on it: the
// request read into a dialogue (continuing a stored response's context) and what its answer echoes.
// The response object and stream events are in response-object.ts.

/** A response request, read: what the run is given and what the response object echoes. */
export interface ResponseCall {
  /** The turns this request adds to the conversation (after the stored context, if it continues one). */
  turns: ModelMessage[];
  dialogue: Omit<Dialogue, 'messages'>;
  previousResponseId: string | null;
  store: boolean;
  stream: boolean;
  /** What the response object repeats of the request. */
  echo: ResponseEcho;
  /** The parameters of the request's image parts, in order. */
  images: string[];
}

export interface ResponseEcho {
  model: string;
  instructions: string | null;
  tools: Json[];
  toolChoice: Json;
  text: Json;
  temperature: number | null;
  topP: number | null;
  maxOutputTokens: number | null;
  metadata: Record<string, string>;
}

/**
 * Reads a Responses request. `context`: the stored turns it continues (empty for a new one), whose
 * tool calls a `function_call_output` may answer. Built-in tools (web search, file search…),
 * background mode and conversations are refused by name: this agent runs only its own tools and
 * the caller's functions.
 */
export function readResponseRequest(
  body: unknown,
  context: readonly ModelMessage[],
  ownToolNames: readonly string[],
  agentId: string,
): ResponseCall {
  const raw = body as Record<string, unknown>;
  const req = parseRequest(request, body);
  refuseUnsupported(raw, [
    ['background', (v) => v !== false, 'background responses are not supported; stream, or wait for the answer'],
    ['conversation', () => true, 'conversations are not supported; continue a response with previous_response_id'],
    ['prompt', () => true, 'stored prompts are not supported; send instructions'],
    ['n', (v) => v !== 1, 'only one answer per request is supported'],
    ['top_logprobs', () => true, 'log probabilities are not supported'],
  ]);

  const system: string[] = [];
  const turns: ModelMessage[] = [];
  const calls = new CallBook();
  /** Where the request has image parts (refused by the service when the model takes none). */
  const images: string[] = [];
  calls.addFrom(context);
  const items = typeof req.input === 'string' ? [{ role: 'user' as const, content: req.input }] : req.input;
  items.forEach((it, i) => {
    const at = `input[${i}]`;
    if ('role' in it && (it.type === undefined || it.type === 'message')) {
      const m = checked(messageItem, it, at);
      if (m.role === 'system' || m.role === 'developer') system.push(partsText(m.content, `${at}.content`));
      else if (m.role === 'assistant')
        turns.push({ role: 'assistant', content: partsText(m.content, `${at}.content`) });
      else
        turns.push({
          role: 'user',
          content: typeof m.content === 'string' ? m.content : userParts(m.content, images, `${at}.content`),
        });
      return;
    }
    switch (it.type) {
      case 'function_call': {
        const c = checked(functionCallItem, it, at);
        const call = { id: c.call_id, name: c.name, arguments: c.arguments };
        calls.add([call]);
        // Calls of one model turn follow its text: they join the assistant turn before them.
        const last = turns[turns.length - 1];
        if (last?.role === 'assistant') last.toolCalls = [...(last.toolCalls ?? []), call];
        else turns.push({ role: 'assistant', content: '', toolCalls: [call] });
        return;
      }
      case 'function_call_output': {
        const o = checked(functionCallOutputItem, it, at);
        turns.push({
          role: 'tool',
          toolCallId: o.call_id,
          toolName: calls.nameOf(o.call_id, `${at}.call_id`),
          content: partsText(o.output, `${at}.output`),
        });
        return;
      }
      case 'reasoning':
        // A model's reasoning from another provider: not something this agent's model can take back.
        return;
      case 'message':
        throw invalidParam(`${at}.role`, "a message's role is user, assistant, system or developer");
      default:
        throw invalidParam(
          `${at}.type`,
          `an input item of type '${it.type}' is not supported; send messages, function_call and function_call_output items`,
        );
    }
  });

  const declared = (req.tools ?? []).map((t, i) => {
    if (t.type !== 'function')
      throw invalidParam(
        `tools[${i}].type`,
        `only function tools are supported (not '${t.type}'): this agent runs its own tools`,
      );
    if (!t.name) throw invalidParam(`tools[${i}].name`, 'a function tool needs its name');
    return { name: t.name, description: t.description ?? undefined, parameters: t.parameters ?? undefined };
  });
  const tools = clientTools(declared, (i) => `tools[${i}].name`, ownToolNames);
  const settings: SamplingSettings = {};
  if (req.temperature != null) settings.temperature = req.temperature;
  if (req.top_p != null) settings.topP = req.top_p;
  const f = req.text?.format;
  const responseFormat: ResponseFormat | undefined =
    !f || f.type === 'text'
      ? undefined
      : f.type === 'json_object'
        ? { type: 'json' }
        : jsonSchemaFormat(f.name, f.schema, 'text.format.schema');
  if (responseFormat) settings.responseFormat = responseFormat;
  const choice =
    req.tool_choice == null
      ? undefined
      : typeof req.tool_choice === 'string'
        ? req.tool_choice
        : { name: req.tool_choice.name };
  const checkedChoice = toolChoiceOf(choice, tools, ownToolNames, 'tool_choice');
  if (checkedChoice !== undefined) settings.toolChoice = checkedChoice;

  const instructions = [req.instructions ?? '', ...system].filter(Boolean).join('\n\n');
  const maxOutputTokens = req.max_output_tokens ?? undefined;
  return {
    turns,
    dialogue: {
      system: instructions,
      clientTools: tools,
      settings,
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    },
    previousResponseId: req.previous_response_id ?? null,
    store: req.store !== false,
    stream: req.stream === true,
    images,
    echo: {
      model: agentId,
      instructions: req.instructions ?? null,
      tools: declared.map((t) => ({
        type: 'function',
        name: t.name,
        description: t.description ?? null,
        parameters: (t.parameters ?? null) as Json,
        strict: null,
      })),
      toolChoice: (req.tool_choice ?? 'auto') as Json,
      text: { format: (f ?? { type: 'text' }) as Json },
      temperature: req.temperature ?? null,
      topP: req.top_p ?? null,
      maxOutputTokens: req.max_output_tokens ?? null,
      metadata: req.metadata ?? {},
    },
  };
}

/**
 * An input item read with the schema of its type: the item union also takes any object with a
 * `type` (so that an unknown type is refused by name), so a known type is checked here.
 */
function checked<S extends z.ZodType>(schema: S, value: unknown, at: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = telling(result.error.issues[0]!);
  throw invalidParam(issue.path.length ? `${at}.${paramName(issue.path)}` : at, issue.message);
}

/** A text content: the string, or its text parts joined; an image or file part is refused here. */
function partsText(content: string | z.output<typeof part>[], param: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((p, j) => {
      if (p.type === 'input_text' || p.type === 'output_text') return stringField(p, 'text', `${param}[${j}]`);
      if (p.type === 'refusal') return stringField(p, 'refusal', `${param}[${j}]`);
      throw invalidParam(`${param}[${j}].type`, `a part of type '${p.type}' is not supported here; send text`);
    })
    .join('');
}

function userParts(parts: z.output<typeof part>[], images: string[], param: string): ContentPart[] {
  return parts.map((p, j) => {
    if (p.type === 'input_text' || p.type === 'output_text')
      return { type: 'text', text: stringField(p, 'text', `${param}[${j}]`) };
    if (p.type === 'input_image') {
      const url = (p as z.output<typeof inputImage>).image_url;
      if (!url)
        throw invalidParam(`${param}[${j}].image_url`, 'an image is given by image_url (file ids are not supported)');
      return imagePart(url, images, `${param}[${j}].image_url`);
    }
    throw invalidParam(
      `${param}[${j}].type`,
      `a part of type '${p.type}' is not supported; send input_text or input_image parts`,
    );
  });
}

/** A part's string field (`text`, `refusal`). */
function stringField(p: object, field: string, param: string): string {
  const value = (p as Record<string, unknown>)[field];
  if (typeof value !== 'string') throw invalidParam(`${param}.${field}`, `this part needs its ${field} as a string`);
  return value;
}
