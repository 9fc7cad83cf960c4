import type { Handler } from '../entries/entry.entities.js';
import type { Surface } from '../surfaces/surface.entities.js';
import type { Json } from '../json.js';
import type { ModelUsage } from './language-model.ports.js';
import type { Workspace } from '../workspace/workspace.entities.js';

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

/** The entry a surface resolved: an HTTP endpoint, MCP tool, webhook or the chat. */
export interface RunEntry {
  kind: 'http' | 'mcp' | 'webhook' | 'chat';
  id: string | null;
  /** Path, tool name or integration name, for the activity log. */
  name: string;
  handler: Handler;
  modelOverride: string | null;
}

export type RunErrorKind = 'script' | 'timeout' | 'memory' | 'output' | 'model' | 'configuration' | 'credits' | 'aborted';

export interface RunResult {
  runId: string;
  output: Json;
  usage: ModelUsage;
  credits: number;
  /** The model reference used (prompt handlers). */
  model: string | null;
  logs: string[];
  durationMs: number;
  /**
   * Set when the handler failed; `output` is then null. `message` is what the caller gets;
   * `detail`, when set, is the fuller text for the activity log (members only).
   */
  error?: { kind: RunErrorKind; message: string; detail?: string };
}

export type RunEvent = { type: 'delta'; text: string } | { type: 'done'; result: RunResult };

/** What a run contributes to the activity log (DESIGN §5), reported by the pipeline. */
export interface RunActivity {
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
}

/** A surface's activity entry for the request a run serves; the pipeline fills `run`. */
export interface RequestActivity {
  run?: RunActivity;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** The request's activity entry; without one the pipeline logs the run as an entry of its own. */
  activity?: RequestActivity;
  /** The run's id, when the surface must name it before the run starts (chat's `start` event). */
  runId?: string;
  /** Prior conversation turns for chat (oldest first). */
  history?: { role: 'user' | 'assistant'; content: string }[];
  /** The agent's workspace as admission read it (absent: the run reads it itself). */
  workspace?: Workspace | null;
}
