import type { Clock } from '../clock.js';
import type { RecordService } from '../documents/record.service.js';
import { newId } from '../ids.js';
import type { Agent } from '../core/agent.entities.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import { documentTools } from './document.tools.js';
import type { CapabilityTools, ToolRun } from './capability-tools.ports.js';
import { checkInput, checksInput, redactJson, redactText, StreamRedactor } from './guardrails.js';
import { ModelNotConfigured, resolveModel, type ModelDefaults, type SecretReader } from '../models/model-resolver.js';
import { promptChars, UsageMeter } from './usage-meter.js';
import {
  ModelFailure,
  type LanguageModels,
  type ModelUsage,
  type ResolvedModel,
  type ToolDefinition,
} from '../models/language-model.ports.js';
import type { ScriptLimits, ScriptSandbox } from '../core/sandbox.ports.js';
import { type Json } from '../json.js';
import { creditsFor } from './run-credits.js';
import { userTurn } from './run-input.js';
import { runScript } from './script-run.js';
import { inputMessages, outputMessages, tracedTool } from './run-span.js';
import type { RunEntry, RunEvent, RunInput, RunOptions, RunResult } from './run.types.js';
import type { ApprovalGate } from './approval-gate.ports.js';
import { resumedMessages } from './run-resume.js';
import { approvalCall, gatedTools, pausedOutput } from './run-pause.js';

export interface RunServiceDeps {
  store: Store;
  clock: Clock;
  models: LanguageModels;
  sandbox: ScriptSandbox;
  secrets: SecretReader;
  records: RecordService;
  modelDefaults: ModelDefaults;
  /** The Endpoint Management capability's tools. */
  endpointManagement: CapabilityTools;
  scriptLimits: ScriptLimits;
  /** The Messaging capability's tools (over the channel queue's signal and MAIL_DOMAIN). */
  messaging: CapabilityTools;
  /** Human approval of risky tool calls (absent: no tool waits). */
  approvals?: ApprovalGate;
}

const NO_USAGE: ModelUsage = { inputTokens: 0, outputTokens: 0 };

/**
 * The execution half of the run pipeline (DESIGN §5 steps 4, 6, 7): input guardrails (`check`,
 * called before admission) → handler → output guardrails. Every surface hands its resolved entry here; admission, charging and the
 * activity log wrap this service.
 */
export class RunService {
  constructor(private readonly deps: RunServiceDeps) {}

  /**
   * The checks that refuse a run without running it (input guardrails): the pipeline calls this
   * before admission, so a refused input never takes a slot or a credit. Throws GuardrailBlocked.
   */
  check(agent: Agent, input: RunInput): void {
    // The user turn is built only when a guardrail reads it: it is the request as indented JSON.
    if (checksInput(agent.guardrails)) checkInput(agent.guardrails, userTurn(input));
  }

  /** Runs an entry to completion (after `check`); handler failures are `result.error`. */
  async run(
    principal: Principal,
    agent: Agent,
    entry: RunEntry,
    input: RunInput,
    opts: RunOptions = {},
  ): Promise<RunResult> {
    for await (const ev of this.stream(principal, agent, entry, input, opts)) if (ev.type === 'done') return ev.result;
    throw new Error('run ended without a result');
  }

  /** Runs an entry, yielding text deltas (prompt handlers) and then the result. */
  async *stream(
    principal: Principal,
    agent: Agent,
    entry: RunEntry,
    input: RunInput,
    opts: RunOptions = {},
  ): AsyncGenerator<RunEvent> {
    const started = Date.now();
    const runId = opts.runId ?? newId('run');
    const base = { runId, usage: NO_USAGE, credits: 0, model: null, logs: [] as string[] };
    const finish = (r: Omit<RunResult, 'durationMs'>): RunEvent => ({
      type: 'done',
      result: { ...r, durationMs: Date.now() - started },
    });

    if (entry.handler.kind === 'script') {
      const span = opts.span?.child(`execute_script ${entry.name}`, { attributes: { 'aes.entry': entry.name } });
      const result = await runScript(this.deps, agent, entry, input, base, opts);
      if (result.error)
        span?.set({ 'aes.run.error_kind': result.error.kind }).failWith('RUN_FAILED', result.error.message);
      span?.end();
      yield finish(result);
      return;
    }

    let model: ResolvedModel;
    try {
      model = await resolveModel(
        this.deps.store.repos,
        this.deps.secrets,
        this.deps.modelDefaults,
        agent,
        entry.modelOverride,
      );
    } catch (err) {
      if (err instanceof ModelNotConfigured)
        return void (yield finish({ ...base, output: null, error: { kind: 'configuration', message: err.message } }));
      throw err;
    }
    const g = agent.guardrails;
    const maxCredits = g.maxCreditsPerRun;
    const redactor = new StreamRedactor(g);
    const dialogue = opts.dialogue;
    const resume = opts.resume;
    const extraSystem = resume ? resume.system : (dialogue?.system ?? '');
    const ownTools = this.toolsFor(agent, { runId, input, traceparent: opts.span?.traceparent() }).map((t) =>
      tracedTool(t, g, opts.span),
    );
    // Tools that wait for a person are offered without `execute`: a call of one ends the loop (issue 54).
    const gated = ownTools.length && this.deps.approvals ? await this.deps.approvals.toolsNeedingApproval(agent) : null;
    const prompt = {
      system: [agent.instructions, entry.handler.body, extraSystem].filter((s) => s.trim()).join('\n\n'),
      messages: resume
        ? await resumedMessages(resume, ownTools)
        : dialogue
          ? dialogue.messages
          : [...(opts.history ?? []), { role: 'user' as const, content: userTurn(input) }],
      tools: [...gatedTools(ownTools, gated), ...(resume ? [] : (dialogue?.clientTools ?? []))],
    };
    const content = opts.span?.settings.captureContent ? opts.span : undefined;
    content?.set({ 'gen_ai.input.messages': inputMessages(g, prompt.messages) });
    // What the model used so far: a run that ends early (the caller went away, the provider failed)
    // is charged for it, never 0 once the provider answered (docs/runtime.md).
    const meter = new UsageMeter(promptChars(prompt));
    const spent = (): Pick<RunResult, 'usage' | 'credits'> => {
      const usage = meter.used();
      return { usage, credits: creditsFor(model, usage) };
    };
    try {
      const events = this.deps.models.stream({
        model,
        ...prompt,
        meter,
        settings: dialogue?.settings,
        maxSteps: g.maxToolSteps + 1,
        maxOutputTokens: lower(g.maxOutputTokens ?? undefined, dialogue?.maxOutputTokens),
        stopWhenUsage: maxCredits == null ? undefined : (u) => creditsFor(model, u) >= maxCredits,
        signal: opts.signal,
        span: opts.span,
      });
      for await (const ev of events) {
        if (ev.type === 'delta') {
          const text = redactor.push(ev.text);
          if (text) yield { type: 'delta', text };
          continue;
        }
        const tail = redactor.flush();
        if (tail) yield { type: 'delta', text: tail };
        const credits = creditsFor(model, ev.result.usage);
        const done: Omit<RunResult, 'durationMs' | 'output'> = {
          ...base,
          usage: ev.result.usage,
          credits,
          model: model.reference,
          finishReason: ev.result.finishReason,
        };
        const waiting = approvalCall(ev.result.clientToolCalls, gated);
        if (waiting && this.deps.approvals) {
          const paused = await this.deps.approvals.pause({
            agent,
            runId,
            entry,
            input,
            system: extraSystem,
            messages: [...prompt.messages, ...(ev.result.turns ?? [])],
            call: waiting,
          });
          const approval = { ...paused, toolName: waiting.name };
          yield finish({ ...done, finishReason: 'tool_calls', approval, output: pausedOutput(approval) });
          return;
        }
        // The caller's tool calls go back to it: their arguments are output, redacted as output is.
        if (ev.result.clientToolCalls.length)
          done.toolCalls = ev.result.clientToolCalls.map((c) => ({ ...c, arguments: redactArguments(g, c.arguments) }));
        if (maxCredits != null && credits > maxCredits) {
          yield finish({
            ...done,
            output: null,
            error: {
              kind: 'credits',
              message: `The run used ${round(credits)} credits, over this agent's per-run limit of ${maxCredits}; its output was withheld`,
            },
          });
        } else {
          const output = redactText(g, ev.result.text);
          content?.set({ 'gen_ai.output.messages': outputMessages(output, ev.result.finishReason) });
          yield finish({ ...done, output });
        }
        return;
      }
    } catch (err) {
      if (opts.signal?.aborted)
        return void (yield finish({
          ...base,
          ...spent(),
          model: model.reference,
          output: null,
          error: { kind: 'aborted', message: 'The caller went away; the run was cancelled' },
        }));
      if (err instanceof ModelFailure)
        return void (yield finish({
          ...base,
          ...spent(),
          model: model.reference,
          output: null,
          error: { kind: 'model', message: err.message, detail: err.detail },
        }));
      throw err;
    } finally {
      // For a run that ends without its result (its reader stopped, it threw): what was used is
      // charged all the same.
      if (opts.spent) opts.spent.credits = spent().credits;
    }
  }

  /** The names of the agent's own tools (its capabilities'), which a caller's tool may not take. */
  toolNames(agent: Agent): string[] {
    return this.toolsFor(agent, null).map((t) => t.name);
  }

  /**
   * Whether the model the agent's prompt runs use takes images; false when no model can be
   * resolved (the run then fails with the configuration error of any prompt run).
   */
  async acceptsImages(agent: Agent): Promise<boolean> {
    try {
      return (await resolveModel(this.deps.store.repos, this.deps.secrets, this.deps.modelDefaults, agent, null))
        .acceptsImages;
    } catch (err) {
      if (err instanceof ModelNotConfigured) return false;
      throw err;
    }
  }

  /** The tools of the agent's capabilities; `run` (its id and input) is what the messaging tools send within. */
  private toolsFor(agent: Agent, run: ToolRun | null): ToolDefinition[] {
    const tools: ToolDefinition[] = [];
    const self = { kind: 'agentSelf', workspaceId: agent.workspaceId, agentId: agent.id } as const;
    if (agent.capabilities.endpointManagement) tools.push(...this.deps.endpointManagement.toolsFor(agent, run));
    if (agent.capabilities.documents) tools.push(...documentTools(this.deps.records, self));
    if (agent.capabilities.messaging) tools.push(...this.deps.messaging.toolsFor(agent, run));
    return tools;
  }
}

/** The lower of two optional bounds. */
function lower(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** A tool call's JSON arguments with the output guardrails applied to their values. */
function redactArguments(g: Agent['guardrails'], text: string): string {
  try {
    return JSON.stringify(redactJson(g, JSON.parse(text) as Json));
  } catch {
    return redactText(g, text);
  }
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
