// Ports of the run pipeline: the script sandbox and the language model. src/infra implements
// them (QuickJS for scripts, the Vercel AI SDK for models); the domain never imports either.

/** JSON value crossing the sandbox or model boundary. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Paging and order of `documents.query` (checked by the record service). */
export interface QueryOptions {
  limit?: number;
  offset?: number;
  sort?: Json;
  cursor?: string;
}

/** What a script may call on its host. Every call is confined to the running agent. */
export interface ScriptHost {
  documents: {
    query(documentId: string, filter?: Json, options?: QueryOptions): Promise<Json>;
    insert(documentId: string, items: Json): Promise<Json>;
    update(documentId: string, filter: Json, set: Json): Promise<Json>;
    delete(documentId: string, filter: Json, options?: { all?: boolean }): Promise<Json>;
  };
  /** Collected into the run's activity entry. */
  log(...args: Json[]): void;
}

export interface ScriptLimits {
  /** CPU time the script itself may use (time spent waiting on host calls does not count). */
  cpuMs: number;
  /** Heap limit of the script's runtime. */
  memoryBytes: number;
  /** Largest JSON-serialised return value accepted. */
  maxOutputBytes: number;
  /** Wall-clock limit for the whole run, host calls included. */
  wallMs: number;
}

export interface ScriptRequest {
  /** The body of an async function; `input`, `request`, `documents` and `log` are in scope. */
  source: string;
  input: Json;
  request: Json;
  host: ScriptHost;
  limits: ScriptLimits;
  /**
   * Whose run this is (the agent id): a sandbox shared by many agents shares its capacity fairly
   * between owners, so one owner's flood of runs cannot starve the others.
   */
  owner: string;
  /** Aborting it ends the run, or takes it out of the queue before it starts. */
  signal?: AbortSignal;
  /**
   * Compile the source without calling it (the save-time syntax check): the outcome is null, or
   * a ScriptFailure of kind `error` whose `position` says where the source is wrong.
   */
  compileOnly?: boolean;
}

export interface ScriptOutcome {
  /** The script's return value (undefined becomes null). */
  value: Json;
  logs: string[];
  cpuMs: number;
}

/** `busy`: the run never started — no room in the sandbox within its queue limit; retry later. */
export type ScriptFailureKind = 'error' | 'timeout' | 'memory' | 'output_too_large' | 'aborted' | 'invalid_output' | 'busy';

/** A place in a script's source, both 1-based, as the user wrote it (not in any generated wrapper). */
export interface ScriptPosition {
  line: number;
  column: number;
}

/**
 * Thrown by a sandbox when a script fails; `message` is safe to show to the caller. A syntax or
 * runtime error of the script itself carries its `position` (also at the end of `message`).
 */
export class ScriptFailure extends Error {
  constructor(
    readonly kind: ScriptFailureKind,
    message: string,
    readonly logs: string[] = [],
    readonly position?: ScriptPosition,
  ) {
    super(message);
    this.name = 'ScriptFailure';
  }
}

/** Runs untrusted JavaScript in an isolate with no process, require, filesystem or network. */
export interface ScriptSandbox {
  run(req: ScriptRequest): Promise<ScriptOutcome>;
}

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

/** What the run pipeline reports to the instance's metrics (infra/metrics.ts); never throws. */
export interface RunMetrics {
  /** An admitted run ended: its handler kind, `ok` or the kind of its failure, and its credits. */
  run(handler: 'script' | 'prompt', outcome: string, credits: number): void;
}
