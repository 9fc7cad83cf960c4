// The language model's port: src/infra/models implements it (the Vercel AI SDK); the domain never imports it.
import type { Json } from '../json.js';

/** A model resolved from a reference: everything a provider adapter needs to call it. */
export interface ResolvedModel {
  reference: string;
  provider: 'openai' | 'anthropic' | 'openai-compatible';
  model: string;
  baseUrl: string | null;
  apiKey: string | null;
  inputPricePerMillion: number;
  outputPricePerMillion: number;
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema (type object) of the arguments. */
  inputSchema: Record<string, unknown>;
  execute(args: Record<string, unknown>, signal?: AbortSignal): Promise<Json>;
}

export interface ModelCall {
  model: ResolvedModel;
  system: string;
  /** The conversation, oldest first; the last one is the user turn of this run. */
  messages: { role: 'user' | 'assistant'; content: string }[];
  tools: ToolDefinition[];
  /** Upper bound on model steps (each tool round trip is one). */
  maxSteps: number;
  maxOutputTokens?: number;
  /** Checked after each step with the usage so far; true stops the tool loop (credit budget). */
  stopWhenUsage?: (usage: ModelUsage) => boolean;
  signal?: AbortSignal;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelResult {
  text: string;
  usage: ModelUsage;
  toolCalls: { name: string; args: unknown }[];
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
