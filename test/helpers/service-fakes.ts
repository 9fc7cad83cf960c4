import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { Json } from '../../src/domain/json.js';
import type { Repositories, Store } from '../../src/domain/ports.js';
import type { Principal } from '../../src/domain/principal.js';
import type { AdmittedRun, BeginOptions } from '../../src/domain/runtime/pipeline.js';
import type { RunEntry, RunInput, RunResult } from '../../src/domain/runtime/run.types.js';
import type { SurfaceRuns } from '../../src/domain/surfaces/surface-runs.ports.js';
import { h, type TestWorkspace } from './harness.js';

// Fakes for testing a surface's service alone, below its transport: a call lifecycle that admits every
// run and records what it was handed, and the harness store with every repository call recorded
// (so a test can say that a guard kept a read from happening at all).

/** What a service handed the call lifecycle's `admit`. */
export interface BeginCall {
  principal: Principal;
  agent: Agent;
  entry: RunEntry;
  input: RunInput;
  opts: BeginOptions;
}

/**
 * The surfaces' port to the call lifecycle, whose `admit` admits every run, records its arguments and
 * answers a run named `runId` (`guard` runs the work unguarded).
 */
export function recordingPipeline(runId = 'run_recorded'): {
  pipeline: SurfaceRuns;
  begun: BeginCall[];
  run: AdmittedRun;
} {
  const begun: BeginCall[] = [];
  const run = { runId } as AdmittedRun;
  const pipeline: SurfaceRuns = {
    admit: async (principal: Principal, agent: Agent, entry: RunEntry, input: RunInput, opts: BeginOptions = {}) => {
      begun.push({ principal, agent, entry, input, opts });
      return run;
    },
    guard: (_agent, _inputText, work) => work(),
  };
  return { pipeline, begun, run };
}

/** One repository call: `responses.get` and its arguments. */
export interface RepoCall {
  name: string;
  args: unknown[];
}

type RepoMethod = (...args: any[]) => Promise<unknown>;

/**
 * The harness store with every repository call recorded. `replace` swaps a method (`'conversations.get'`)
 * for the test's own, which gets the real one as its last argument.
 */
export function recordingStore(replace: Record<string, (real: RepoMethod, ...args: any[]) => Promise<unknown>> = {}): {
  store: Store;
  calls: RepoCall[];
  /** The arguments of each call of `name`, in order. */
  argsOf(name: string): unknown[][];
} {
  const real = h().service.store;
  const calls: RepoCall[] = [];
  const repos: Record<string, Record<string, unknown>> = {};
  for (const [repoName, repo] of Object.entries(real.repos)) {
    const wrapped: Record<string, unknown> = {};
    for (const [method, fn] of Object.entries(repo as Record<string, unknown>)) {
      if (typeof fn !== 'function') continue;
      const name = `${repoName}.${method}`;
      const original = (...args: unknown[]) => (fn as RepoMethod).apply(repo, args);
      const own = replace[name];
      wrapped[method] = (...args: unknown[]) => {
        calls.push({ name, args });
        return own ? own(original, ...args) : original(...args);
      };
    }
    repos[repoName] = wrapped;
  }
  const store: Store = { ...real, repos: repos as unknown as Repositories };
  return { store, calls, argsOf: (name) => calls.filter((c) => c.name === name).map((c) => c.args) };
}

/** When the agents of `insertAgent` were created: a time with milliseconds. */
export const AGENT_CREATED_AT = new Date(Date.UTC(2024, 2, 4, 5, 6, 7, 891));

/** An agent of the workspace, created by its admin, with `over` then stored over it as is. */
export async function insertAgent(ws: TestWorkspace, over: Partial<Agent> = {}): Promise<Agent> {
  const admin: Principal = { kind: 'member', memberId: ws.adminId, workspaceId: ws.workspaceId, role: 'ADMIN' };
  const { store, services } = h().service;
  const created = await services.agents.create(admin, {
    name: 'Service test agent',
    description: 'Answers service tests',
    instructions: 'Be brief.',
  });
  await store.repos.agents.update({ ...created, createdAt: AGENT_CREATED_AT, ...over });
  return (await store.repos.agents.get(created.id))!;
}

/** A finished run's result: `output` answered, or the failure `error`. */
export function runResult(output: Json, error?: RunResult['error']): RunResult {
  return {
    runId: 'run_recorded',
    output: error ? null : output,
    usage: { inputTokens: 3, outputTokens: 4 },
    credits: 7,
    model: null,
    logs: [],
    durationMs: 5,
    ...(error ? { error } : {}),
  };
}

/** What a refusal says, whole: its class, code, message, details and the field it names. */
export function refusalShape(err: unknown): Record<string, unknown> {
  const e = err as { code?: string; message: string; details?: unknown; field?: unknown };
  return {
    class: (err as object).constructor.name,
    code: e.code,
    message: e.message,
    details: e.details,
    field: e.field,
  };
}

/** The refusal shape of an Invalid: its message, and the field it names (if any). */
export function invalidShape(message: string, field?: string): Record<string, unknown> {
  return { class: 'Invalid', code: 'INVALID', message, details: field ? { field } : undefined, field };
}

/** The error `fn` rejects with; fails when it resolves. */
export async function rejection(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, but the call succeeded');
}
