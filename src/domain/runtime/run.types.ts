import type { Handler } from '../entries/entry.entities.js';
import type { Surface } from '../core/surface.entities.js';
import type { Json } from '../json.js';
import type {
  FinishReason,
  ModelMessage,
  ModelUsage,
  SamplingSettings,
  ToolCall,
  ToolDefinition,
} from '../models/language-model.ports.js';
import type { Workspace } from '../workspace/workspace.entities.js';
import type { Span } from '../tracing/call-trace.js';

/** The input of a run, the same shape on every surface (credential headers never included). */
export interface RunInput {
  surface: Surface;
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: Json;
  /** The raw body as text (webhooks keep it for scripts that need the exact bytes). */
  rawBody?: string;
  /** Webhooks: which delivery and attempt this run processes (handlers use the id to stay idempotent). */
  delivery?: { id: string; attempt: number; senderDeliveryId: string | null };
}

/** The entry a surface resolved: an HTTP endpoint, MCP tool, webhook, the chat, a channel or a schedule. */
export interface RunEntry {
  kind: 'http' | 'mcp' | 'webhook' | 'chat' | 'channel' | 'schedule';
  id: string | null;
  /** Path, tool name or integration name, for the activity log. */
  name: string;
  handler: Handler;
  modelOverride: string | null;
}

export type RunErrorKind =
  'script' | 'timeout' | 'memory' | 'output' | 'model' | 'configuration' | 'credits' | 'aborted';

export interface RunResult {
  runId: string;
  output: Json;
  usage: ModelUsage;
  credits: number;
  /** The model reference used (prompt handlers). */
  model: string | null;
  logs: string[];
  durationMs: number;
  /** Why the model stopped (prompt handlers). */
  finishReason?: FinishReason;
  /** The caller's own tools the model called (a dialogue's client tools): the caller runs them. */
  toolCalls?: ToolCall[];
  /** Set when the run paused at a call that waits for a person (issue 54): `output` then says so. */
  approval?: { id: string; toolName: string; expiresAt: Date };
  /**
   * Set when the handler failed; `output` is then null. `message` is what the caller gets;
   * `detail`, when set, is the fuller text for the activity log (members only).
   */
  error?: { kind: RunErrorKind; message: string; detail?: string };
}

export type RunEvent = { type: 'delta'; text: string } | { type: 'done'; result: RunResult };

/** What a run tells the activity log about itself once it ended (DESIGN §5), returned by the pipeline on its admitted run. */
export interface RunFacts {
  /** Path, tool name or integration name. */
  entry: string;
  runId: string | null;
  credits: number;
  logs: string[];
  output: Json;
  /** The handler's failure or the refusal, as the caller saw it. */
  error: string | null;
  /** For the activity log: the failure's detail where it has more than the caller saw (a provider's own text). */
  errorDetail: string | null;
  durationMs: number;
  /** For the run metrics: `ok`, the kind of the handler's failure, or `failed` (no result: it threw, its reader left). */
  outcome: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** The run's id, when the surface must name it before the run starts (chat's `start` event). */
  runId?: string;
  /** Prior conversation turns for chat (oldest first). */
  history?: { role: 'user' | 'assistant'; content: string }[];
  /** A conversation the caller sends whole, in place of `history` and the user turn (the OpenAI-compatible API). */
  dialogue?: Dialogue;
  /** The agent's workspace as admission read it (absent: the run reads it itself). */
  workspace?: Workspace | null;
  /**
   * Where a run that ends without its result (its consumer stopped reading, or it threw) leaves the
   * credits it used, for the pipeline to charge.
   */
  spent?: { credits: number };
  /** The run's span (`invoke_agent`): its model calls, tools and script are its children. */
  span?: Span;
  /** A paused run's continuation: its stored conversation and the decision (approvals, issue 54). */
  resume?: RunResume;
}

/**
 * A conversation a caller sends whole with each request (the OpenAI-compatible API): the model sees
 * the agent's instructions, then the caller's system text, then these turns; the caller's tools are
 * offered beside the agent's own, and a call of one ends the run with it in `RunResult.toolCalls`.
 */
export interface Dialogue {
  /** The caller's system text ('' for none), after the agent's instructions. */
  system: string;
  messages: ModelMessage[];
  /** The caller's tools (without `execute`). */
  clientTools: ToolDefinition[];
  settings: SamplingSettings;
  /** The caller's bound on output tokens; the agent's guardrail bound wins when lower. */
  maxOutputTokens?: number;
}

/** What the continuation of a paused run is given: its stored conversation and the person's decision. */
export interface RunResume {
  system: string;
  messages: ModelMessage[];
  call: ToolCall;
  decision: { approved: true } | { approved: false; reason: string | null; expired: boolean };
}
