import { z } from 'zod';
import { Invalid } from '../../domain/errors.js';
import type {
  ContentPart,
  ModelMessage,
  ResponseFormat,
  ToolCall,
  ToolChoice,
  ToolDefinition,
} from '../../domain/models/language-model.ports.js';

// What both dialects of the OpenAI-compatible API share once a request is read: the caller's
// tools, tool choice and answer format as the model port takes them, and how a refusal names the
// parameter (OpenAI's `param`: `messages[2].content`, not `messages.2.content`).

/** Most tools a request may declare (OpenAI's own limit). */
export const MAX_CLIENT_TOOLS = 128;
/** A function name as OpenAI accepts it. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A refusal naming the request parameter, as OpenAI's `param` writes it. */
export function invalidParam(param: string, message: string): Invalid {
  return new Invalid(`${param}: ${message}`, param);
}

/** A zod path as OpenAI names a parameter: `messages[2].content[0].image_url`. */
export function paramName(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/** Parses a request body with `schema`; the first problem becomes an Invalid naming its parameter. */
export function parseRequest<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body))
    throw new Invalid('The request body must be a JSON object');
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = telling(result.error.issues[0]!);
  const param = paramName(issue.path);
  throw param ? invalidParam(param, issue.message) : new Invalid(issue.message);
}

/**
 * The issue that says what is wrong: for a value that matches none of a union's shapes, the issue of
 * the shape it came closest to (one whose type matched: "at most 4 stop sequences" rather than
 * "Invalid input"), with its path from the request's root.
 */
export function telling(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union' || !issue.errors.length) return issue;
  const wrongType = (b: z.core.$ZodIssue[]) =>
    b.length === 1 && b[0]!.code === 'invalid_type' && b[0]!.path.length === 0;
  const candidates = issue.errors.filter((b) => b.length > 0 && !wrongType(b));
  if (!candidates.length) {
    // Of no shape the union takes: say which it takes.
    const expected = [...new Set(issue.errors.flatMap((b) => (b[0]?.code === 'invalid_type' ? [b[0].expected] : [])))];
    return expected.length ? { ...issue, message: `Invalid input: expected ${expected.join(' or ')}` } : issue;
  }
  // The shape it came closest to: the fewest problems, the first listed on a tie.
  const closest = candidates.reduce((best, b) => (b.length < best.length ? b : best));
  const inner = closest[0]!;
  return telling({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue);
}

/** A text of at most 1 MiB (the body bound; a text part cannot be longer). */
export const text = z.string();

/** Request parameters OpenAI has that this API refuses by name, with why (a client must not think them honoured). */
export function refuseUnsupported(
  body: Record<string, unknown>,
  checks: [param: string, refused: (v: unknown) => boolean, why: string][],
): void {
  for (const [param, refused, why] of checks) {
    if (body[param] !== undefined && body[param] !== null && refused(body[param])) throw invalidParam(param, why);
  }
}

/** A function tool as a request declares it; `parameters` is the JSON Schema of its arguments. */
export interface FunctionTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export const functionParameters = z
  .record(z.string(), z.unknown())
  .refine((s) => s.type === undefined || s.type === 'object', 'must be a JSON Schema of type object')
  .optional();

/**
 * The caller's tools as the model port takes them (no `execute`: a call of one ends the run and goes
 * back to the caller). A name must be unique and must not be one of the agent's own tools.
 */
export function clientTools(
  tools: FunctionTool[],
  param: (i: number) => string,
  ownNames: readonly string[],
): ToolDefinition[] {
  if (tools.length > MAX_CLIENT_TOOLS) throw invalidParam('tools', `at most ${MAX_CLIENT_TOOLS} tools`);
  const seen = new Set<string>();
  return tools.map((t, i) => {
    if (!TOOL_NAME.test(t.name))
      throw invalidParam(param(i), 'a function name is 1 to 64 letters, digits, underscores or dashes');
    if (seen.has(t.name)) throw invalidParam(param(i), `the function '${t.name}' is declared twice`);
    if (ownNames.includes(t.name))
      throw invalidParam(
        param(i),
        `'${t.name}' is the name of one of this agent's own tools; name the function differently`,
      );
    seen.add(t.name);
    return {
      name: t.name,
      description: t.description ?? '',
      inputSchema: { type: 'object', properties: {}, ...t.parameters },
    };
  });
}

/** A tool choice naming a function must name one of the request's tools (or the agent's own). */
export function toolChoiceOf(
  choice: ToolChoice | undefined,
  tools: readonly ToolDefinition[],
  ownNames: readonly string[],
  param: string,
): ToolChoice | undefined {
  if (choice === undefined || typeof choice === 'string') return choice;
  if (!tools.some((t) => t.name === choice.name) && !ownNames.includes(choice.name))
    throw invalidParam(param, `no tool named '${choice.name}' is declared in tools`);
  return choice;
}

/** The answer format of a JSON-schema request, checked to be an object schema. */
export function jsonSchemaFormat(
  name: string | undefined,
  schema: Record<string, unknown> | undefined,
  param: string,
): ResponseFormat {
  if (!schema) throw invalidParam(param, 'a json_schema format needs its schema');
  return { type: 'json_schema', name, schema };
}

/**
 * An image part, by an http(s) or `data:image/…` URL; its parameter is noted in `images`, so that
 * the request is refused naming it when the agent's model takes no images (the domain refuses it).
 */
export function imagePart(url: string, images: string[], param: string): ContentPart {
  images.push(param);
  if (!/^https?:\/\//i.test(url) && !/^data:image\/[a-z0-9.+-]+;base64,/i.test(url))
    throw invalidParam(param, 'an image is an http(s) URL or a data:image/…;base64 URL');
  return { type: 'image', url };
}

/**
 * The calls a conversation made, by id, so that a tool result names its function (the model port
 * needs it; OpenAI's tool messages carry only the call's id).
 */
export class CallBook {
  private readonly names = new Map<string, string>();

  add(calls: readonly ToolCall[]): void {
    for (const c of calls) this.names.set(c.id, c.name);
  }

  addFrom(messages: readonly ModelMessage[]): void {
    for (const m of messages) if (m.role === 'assistant' && m.toolCalls) this.add(m.toolCalls);
  }

  /** The function of call `id`; Invalid (naming `param`) when no earlier turn made that call. */
  nameOf(id: string, param: string): string {
    const name = this.names.get(id);
    if (name === undefined) throw invalidParam(param, `no earlier assistant turn made a tool call with the id '${id}'`);
    return name;
  }
}
