// The script sandbox's port: src/infra/sandbox implements it (QuickJS); the domain never imports it.
import type { Json } from '../json.js';

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
export type ScriptFailureKind =
  'error' | 'timeout' | 'memory' | 'output_too_large' | 'aborted' | 'invalid_output' | 'busy';

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
