// The language model's port: src/infra/models implements it (the Vercel AI SDK); the domain never imports it.
import type { Json } from '../json.js';
import type { Span } from '../tracing/call-trace.js';

/** A model resolved from a reference: everything a provider adapter needs to call it. */
export interface ResolvedModel {
  reference: string;
  provider: 'openai' | 'anthropic' | 'openai-compatible';
  model: string;
  baseUrl: string | null;
  apiKey: string | null;
  inputPricePerMillion: number;
  outputPricePerMillion: number;
  /** Whether the model takes image parts in user messages. */
  acceptsImages: boolean;
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema (type object) of the arguments. */
  inputSchema: Record<string, unknown>;
  /**
   * Runs the tool on this side. A tool without it is the caller's own (a client tool of the
   * OpenAI-compatible API): a call of it ends the model call with the call in `toolCalls`.
   * `callId` is the model's id of the call (its span names it).
   */
  execute?(args: Record<string, unknown>, signal?: AbortSignal, callId?: string): Promise<Json>;
}

/** A part of a user message: text, or an image by URL (`data:` URLs included). */
export type ContentPart = { type: 'text'; text: string } | { type: 'image'; url: string };

/** A tool call the model made, as the conversation keeps it. */
export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the model sent them (a JSON text). */
  arguments: string;
}

/** One turn of a conversation the model is given. */
export type ModelMessage =
  | { role: 'user'; content: string | ContentPart[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string };

/** Which tools the model may or must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** The shape the caller asked the answer to have: any JSON object, or one matching a schema. */
export type ResponseFormat = { type: 'json' } | { type: 'json_schema'; name?: string; schema: Record<string, unknown> };

/** Sampling settings a caller may set (the OpenAI-compatible API passes them through). */
export interface SamplingSettings {
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  responseFormat?: ResponseFormat;
  toolChoice?: ToolChoice;
}

export interface ModelCall {
  model: ResolvedModel;
  system: string;
  /** The conversation, oldest first; the last one is the user turn of this run. */
  messages: ModelMessage[];
  tools: ToolDefinition[];
  settings?: SamplingSettings;
  /** Upper bound on model steps (each tool round trip is one). */
  maxSteps: number;
  maxOutputTokens?: number;
  /** Checked after each step with the usage so far; true stops the tool loop (credit budget). */
  stopWhenUsage?: (usage: ModelUsage) => boolean;
  signal?: AbortSignal;
  /**
   * Told what the call uses as it goes, so that a call that ends early (the caller went away, the
   * provider failed) is still charged for it. The adapter's own when absent.
   */
  meter?: UsageReport;
  /** The run's span: each request to the provider is a `chat {model}` span under it, named in its `traceparent`. */
  span?: Span;
}

/**
 * What a model adapter reports while a call runs (each step is one request to the provider). A
 * step counts from its first streamed chunk: a request the provider refused or never answered
 * costs nothing, as providers bill none.
 */
export interface UsageReport {
  /** The provider began answering a step. */
  stepStarted(): void;
  /** Output the open step streamed (text, reasoning, a tool call's arguments), in characters. */
  output(chars: number): void;
  /** Usage the provider reported for the open step before its end (figures it did not report are absent). */
  reported(usage: Partial<ModelUsage>): void;
  /** A tool's result, in characters: the next step's prompt holds it. */
  toolResult(chars: number): void;
  /** The open step ended with the usage the provider reported for it (figures it did not report are absent). */
  stepFinished(usage: Partial<ModelUsage>): void;
  /** What the call used so far: the finished steps' usage and the open step's. */
  used(): ModelUsage;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

/** Why the model stopped: its answer ended, hit the token limit, or calls tools of the caller. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ModelResult {
  text: string;
  usage: ModelUsage;
  /** Every tool call of the loop, this side's tools included. */
  toolCalls: { name: string; args: unknown }[];
  /** Calls of tools without `execute`, which the caller runs: the model call ended on them. */
  clientToolCalls: ToolCall[];
  finishReason: FinishReason;
  /**
   * The turns the loop added after the given messages (assistant turns with their tool calls, this
   * side's tool results): what a paused run keeps to resume (approvals, issue 54).
   */
  turns?: ModelMessage[];
}

export type ModelEvent = { type: 'delta'; text: string } | { type: 'done'; result: ModelResult };

/**
 * What a provider's model list answered: the model names, or why there is no list to check
 * against (the provider has no list endpoint, refused the key, could not be reached, timed out).
 * `reason` is safe to show to the workspace's admins: it never holds the API key.
 */
export type ModelListing = { listed: true; models: string[] } | { listed: false; reason: string };

/** Calls a language model with a bounded tool loop. */
export interface LanguageModels {
  generate(call: ModelCall): Promise<ModelResult>;
  stream(call: ModelCall): AsyncIterable<ModelEvent>;
  /** The provider's model names. An adapter without it is one whose models cannot be listed. */
  listModels?(model: ResolvedModel): Promise<ModelListing>;
}

/**
 * Thrown by a model adapter when the provider fails. `message` is for callers on the public
 * surfaces: the kind of failure and the provider's HTTP status, never the provider's own text.
 * `detail` is for the workspace's members (the activity log): the provider, model and the
 * provider's text, with credentials removed.
 */
export class ModelFailure extends Error {
  readonly detail: string;
  constructor(message: string, detail?: string) {
    super(message);
    this.name = 'ModelFailure';
    this.detail = detail ?? message;
  }
}
