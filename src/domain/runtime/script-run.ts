import type { RecordService } from '../documents/record.service.js';
import type { Agent } from '../core/agent.entities.js';
import { ScriptFailure, type ScriptHost, type ScriptLimits, type ScriptSandbox } from '../core/sandbox.ports.js';
import { DomainError, Unavailable } from '../errors.js';
import type { Json } from '../json.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import { redactJson } from './guardrails.js';
import { scriptRunCredits } from './run-credits.js';
import type { RunEntry, RunInput, RunOptions, RunResult } from './run.types.js';

/** What a script run needs of the run service's dependencies. */
export interface ScriptRunDeps {
  store: Store;
  sandbox: ScriptSandbox;
  records: RecordService;
  scriptLimits: ScriptLimits;
}

/** Retry-After of a script call refused because the sandbox had no room for it in time. */
const SANDBOX_BUSY_RETRY_AFTER_SECONDS = 2;

/**
 * Runs a script entry in the sandbox: the script's failures are `result.error`; a busy sandbox or
 * an unreachable database behind a documents call throws Unavailable (503 + Retry-After).
 */
export async function runScript(
  deps: ScriptRunDeps,
  agent: Agent,
  entry: RunEntry,
  input: RunInput,
  base: Omit<RunResult, 'durationMs' | 'output'>,
  { signal, workspace }: RunOptions,
): Promise<Omit<RunResult, 'durationMs'>> {
  // The workspace admission read, when the pipeline passes it on: one read per run, not two.
  const credits = scriptRunCredits(
    workspace !== undefined ? workspace : await deps.store.repos.workspaces.get(agent.workspaceId),
  );
  const request: { [key: string]: Json } = {
    surface: input.surface,
    method: input.method,
    path: input.path,
    params: input.params,
    query: input.query,
    headers: input.headers,
  };
  if (input.rawBody !== undefined) request.rawBody = input.rawBody;
  if (input.delivery) request.delivery = { ...input.delivery };
  /** Set when a documents call of the script met an unreachable database. */
  const outage: { error?: Unavailable } = {};
  try {
    const outcome = await deps.sandbox.run({
      source: entry.handler.body,
      input: input.body,
      request,
      host: scriptHost(deps.records, agent, outage),
      limits: deps.scriptLimits,
      owner: agent.id,
      signal,
    });
    return { ...base, credits, logs: outcome.logs, output: redactJson(agent.guardrails, outcome.value) };
  } catch (err) {
    if (!(err instanceof ScriptFailure)) throw err;
    // The script never ran: the caller gets 503 + Retry-After, not a failed run.
    if (err.kind === 'busy') throw new Unavailable(err.message, SANDBOX_BUSY_RETRY_AFTER_SECONDS);
    // The script failed after the database could not be reached for one of its documents calls:
    // the caller gets 503 + Retry-After too (the outage, not the handler, is the cause). A script
    // that caught that error and finished is a run like any other.
    if (err.kind === 'error' && outage.error)
      throw new Unavailable(outage.error.message, outage.error.retryAfterSeconds);
    const kind =
      err.kind === 'timeout'
        ? 'timeout'
        : err.kind === 'memory'
          ? 'memory'
          : err.kind === 'aborted'
            ? 'aborted'
            : err.kind === 'error'
              ? 'script'
              : 'output';
    return { ...base, credits, logs: err.logs, output: null, error: { kind, message: err.message } };
  }
}

/** The script host API, confined to the agent's own documents; runs as a system principal. */
function scriptHost(records: RecordService, agent: Agent, outage: { error?: Unavailable }): ScriptHost {
  const p: Principal = {
    kind: 'system',
    name: 'script-documents',
    workspaceId: agent.workspaceId,
    agentId: agent.id,
  };
  const r = records;
  // The script sees a domain refusal's message; any other failure (a dropped database connection)
  // only as "failed unexpectedly", never the cause's text.
  const call = async (op: string, fn: () => Promise<unknown>): Promise<Json> => {
    try {
      return JSON.parse(JSON.stringify(await fn())) as Json;
    } catch (err) {
      if (err instanceof Unavailable) outage.error = err;
      if (err instanceof DomainError) throw err;
      throw new Error(`documents.${op} failed unexpectedly; try again`);
    }
  };
  return {
    documents: {
      query: (id, filter, o) =>
        call('query', () =>
          r.query(p, agent.id, id, 'agent', {
            filter,
            limit: o?.limit,
            offset: o?.offset,
            sort: o?.sort,
            cursor: o?.cursor,
          }),
        ),
      insert: (id, items) => call('insert', () => r.insert(p, agent.id, id, 'agent', items)),
      update: (id, filter, set) => call('update', () => r.update(p, agent.id, id, 'agent', { filter, set })),
      delete: (id, filter, o) => call('delete', () => r.delete(p, agent.id, id, 'agent', { filter, all: o?.all })),
    },
    log: () => {},
  };
}
