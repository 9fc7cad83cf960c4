import type { ActivityRecord } from '../activity/activity-log.js';
import type { Clock } from '../clock.js';
import type { EventOutbox } from '../events/event.ports.js';
import type { Agent } from '../core/agent.entities.js';
import { Conflict, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import { assertAgentAction, canSee, loadAgent, requireMember, requireWriter } from '../policy.js';
import type { Store } from '../ports.js';
import type { Principal } from '../principal.js';
import type { ApprovalGate, PausedRun, RunResume } from '../runtime/approval-gate.ports.js';
import type { UnattendedRuns } from '../runtime/pipeline.js';
import type { RunResult } from '../runtime/run.types.js';
import type { Approval, ApprovalPolicy, ApprovalState } from './approval.entities.js';
import { assertMayDecide, assertStorable, isExpired, policyInput, reasonOf } from './approval-rules.js';

/** Where a decision's activity entry goes (the call lifecycle's `received`). */
export interface DecisionLog {
  received(agent: Agent, record: ActivityRecord): void;
}

export interface ApprovalDeps {
  store: Store;
  clock: Clock;
  /** The agent's own tool names (policy check). */
  toolNames(agent: Agent): string[];
  log: DecisionLog;
  /** Reports a continuation that failed past its own result (for the service log). */
  onError(err: unknown, approvalId: string): void;
}

/**
 * Human approval of risky actions (issue 54, docs/decisions.md "Approvals (issue 54)"): the gate
 * the run service pauses at, the policy, the list, and the decisions, each of which continues the
 * paused run as a run of its own (through admission again) once the decision is stored.
 */
export class ApprovalService implements ApprovalGate {
  private calls: UnattendedRuns | null = null;
  /** Where `approval.requested` and `approval.decided` go (outbound event webhooks); set by the composition. */
  events?: EventOutbox;
  /** Continuations running here (tests and shutdown wait for them). */
  readonly running = new Set<Promise<void>>();

  constructor(private readonly deps: ApprovalDeps) {}

  /** The lifecycle continuations run through (it is built after the run service that holds this gate). */
  attach(calls: UnattendedRuns): void {
    this.calls = calls;
  }

  async toolsNeedingApproval(agent: Agent): Promise<ReadonlySet<string>> {
    const p = await this.deps.store.repos.approvals.getPolicy(agent.id);
    return new Set(p?.tools ?? []);
  }

  async pause(run: PausedRun): Promise<{ id: string; expiresAt: Date }> {
    assertStorable(run);
    const policy = await this.deps.store.repos.approvals.getPolicy(run.agent.id);
    const now = this.deps.clock.now();
    const a: Approval = {
      id: newId('apr'),
      workspaceId: run.agent.workspaceId,
      agentId: run.agent.id,
      runId: run.runId,
      surface: run.input.surface,
      call: run.call,
      resume: { entry: run.entry, input: run.input, system: run.system, messages: run.messages },
      approverRole: policy?.approverRole ?? 'ADMIN',
      state: 'PENDING',
      expiresAt: new Date(now.getTime() + (policy?.expirySeconds ?? 86400) * 1000),
      decidedBy: null,
      decidedAt: null,
      reason: null,
      outcome: null,
      createdAt: now,
    };
    await this.deps.store.repos.approvals.insert(a);
    void this.events?.emit(a.workspaceId, 'approval.requested', {
      agentId: a.agentId,
      data: { agentId: a.agentId, approvalId: a.id, runId: a.runId, tool: a.call.name },
    });
    return { id: a.id, expiresAt: a.expiresAt };
  }

  /** The agent's policy (null: no tool waits). */
  async policy(principal: Principal, agent: Agent): Promise<ApprovalPolicy | null> {
    assertAgentAction(principal, agent, 'read');
    return this.deps.store.repos.approvals.getPolicy(agent.id);
  }

  /** Replaces the agent's policy (agent configuration: admins, or a member of the agent's team). */
  async setPolicy(
    principal: Principal,
    agent: Agent,
    input: { tools: string[]; approverRole?: string | null; expirySeconds?: number | null },
  ): Promise<ApprovalPolicy> {
    assertAgentAction(principal, agent, 'configure');
    const p = policyInput(input, this.deps.toolNames(agent));
    const policy = { agentId: agent.id, ...p, updatedAt: this.deps.clock.now() };
    await this.deps.store.repos.approvals.savePolicy(policy);
    return policy;
  }

  /** The workspace's approvals a member may see: pending first. Those past expiry are denied first. */
  async list(
    principal: Principal,
    f: { agentId?: string; state?: ApprovalState; first?: number },
  ): Promise<Approval[]> {
    const m = requireMember(principal);
    // An agent named is one the member may read (another workspace's, or a hidden one: NOT_FOUND).
    if (f.agentId !== undefined) await loadAgent(this.deps.store.repos, principal, f.agentId, 'read');
    await this.expireDue(m.workspaceId);
    const list = await this.deps.store.repos.approvals.list(m.workspaceId, {
      ...f,
      first: Math.min(f.first ?? 50, 200),
    });
    const agents = await this.deps.store.repos.agents.getMany([...new Set(list.map((a) => a.agentId))]);
    const visible = new Set(agents.filter((a) => canSee(principal, a)).map((a) => a.id));
    return list.filter((a) => visible.has(a.agentId));
  }

  /** The approval of a paused run, for the caller polling it (its agent already resolved by the surface). */
  async ofRun(agent: Agent, runId: string): Promise<Approval> {
    let a = await this.deps.store.repos.approvals.findByRun(runId);
    if (!a || a.agentId !== agent.id)
      throw new NotFound('Run', runId.slice(0, 100), ': only a run waiting for approval is kept');
    if (isExpired(a, this.deps.clock.now())) a = (await this.expire(a)) ?? a;
    return a;
  }

  /** Approves or denies a pending call (members of the approver role), then continues its run. */
  async decide(principal: Principal, id: string, approve: boolean, reason?: string | null): Promise<Approval> {
    // A viewer never decides: refused before anything is looked up.
    const m = requireWriter(principal);
    const why = reasonOf(reason);
    const a = await this.deps.store.repos.approvals.get(id);
    const agent = a && a.workspaceId === m.workspaceId ? await this.deps.store.repos.agents.get(a.agentId) : null;
    if (!a || !agent || !canSee(principal, agent)) throw new NotFound('Approval', id.slice(0, 100));
    assertMayDecide(m.role, a.approverRole);
    const now = this.deps.clock.now();
    if (isExpired(a, now)) {
      await this.expire(a);
      throw new Conflict('This approval expired before it was decided; the call was refused');
    }
    const member = await this.deps.store.repos.members.get(m.memberId);
    const decidedBy = member?.email ?? m.memberId;
    const state = approve ? 'APPROVED' : 'DENIED';
    if (!(await this.deps.store.repos.approvals.decide(id, { state, decidedBy, at: now, reason: why })))
      throw new Conflict('This approval was already decided');
    const decided: Approval = { ...a, state, decidedBy, decidedAt: now, reason: why };
    this.logDecision(agent, decided);
    this.continueRun(agent, decided, approve ? { approved: true } : { approved: false, reason: why, expired: false });
    return decided;
  }

  /**
   * Denies pending approvals past their expiry in every workspace (housekeeping, so that one nobody
   * reads continues too); returns how many it denied.
   */
  async expireOverdue(limit = 100): Promise<number> {
    let n = 0;
    for (const a of await this.deps.store.repos.approvals.listExpired(this.deps.clock.now(), limit))
      if (await this.expire(a)) n++;
    return n;
  }

  /** Denies the workspace's pending approvals past their expiry (lazily, on read). */
  private async expireDue(workspaceId: string): Promise<void> {
    const due = await this.deps.store.repos.approvals.listExpired(this.deps.clock.now(), 20);
    for (const a of due) if (a.workspaceId === workspaceId) await this.expire(a);
  }

  /** Marks an approval expired and continues its run with the refusal; null when another got there first. */
  private async expire(a: Approval): Promise<Approval | null> {
    const at = this.deps.clock.now();
    if (!(await this.deps.store.repos.approvals.decide(a.id, { state: 'EXPIRED', decidedBy: null, at, reason: null })))
      return null;
    const agent = await this.deps.store.repos.agents.get(a.agentId);
    const expired: Approval = { ...a, state: 'EXPIRED', decidedAt: at };
    if (!agent) return expired;
    this.logDecision(agent, expired);
    this.continueRun(agent, expired, { approved: false, reason: null, expired: true });
    return expired;
  }

  /** The decision's activity entry: who decided what, on which call of which run. */
  private logDecision(agent: Agent, a: Approval): void {
    const decision = a.state === 'APPROVED' ? 'approved' : a.state === 'DENIED' ? 'denied' : 'expired';
    void this.events?.emit(a.workspaceId, 'approval.decided', {
      agentId: a.agentId,
      data: {
        agentId: a.agentId,
        approvalId: a.id,
        runId: a.runId,
        tool: a.call.name,
        decision,
        decidedBy: a.decidedBy,
      },
    });
    this.deps.log.received(agent, {
      surface: a.surface,
      entry: a.call.name,
      method: a.state === 'APPROVED' ? 'APPROVE' : a.state === 'DENIED' ? 'DENY' : 'EXPIRE',
      path: `approvals/${a.id}`,
      status: 200,
      requestBody: { approvalId: a.id, toolCallId: a.call.id, decidedBy: a.decidedBy, reason: a.reason },
      response: { state: a.state, decidedBy: a.decidedBy ?? 'expiry' },
      runId: a.runId,
    });
  }

  /** Runs the continuation in the background; its outcome is stored for the caller that polls. */
  private continueRun(agent: Agent, a: Approval, decision: RunResume['decision']): void {
    const work = this.runContinuation(agent, a, decision)
      .catch((err) => this.deps.onError(err, a.id))
      .finally(() => this.running.delete(work));
    this.running.add(work);
  }

  private async runContinuation(agent: Agent, a: Approval, decision: RunResume['decision']): Promise<void> {
    if (!this.calls) throw new Error('approvals: no call lifecycle attached');
    const principal = {
      kind: 'system',
      name: 'approval-continuation',
      workspaceId: agent.workspaceId,
      agentId: agent.id,
    } as const;
    const resume: RunResume = { system: a.resume.system, messages: a.resume.messages, call: a.call, decision };
    const runId = newId('run');
    let result: RunResult | undefined;
    try {
      const run = await this.calls.begin(principal, agent, a.resume.entry, a.resume.input, { resume, runId });
      for await (const ev of run.events()) if (ev.type === 'done') result = ev.result;
    } catch (err) {
      // A refusal (the agent's limits) ends the continuation: the caller reads why.
      const message = err instanceof Error && 'code' in err ? err.message : 'The continued run failed';
      await this.deps.store.repos.approvals.saveOutcome(a.id, {
        runId,
        output: null,
        error: message,
        nextApprovalId: null,
      });
      if (!(err instanceof Error && 'code' in err)) throw err;
      return;
    }
    await this.deps.store.repos.approvals.saveOutcome(a.id, {
      runId: result?.runId ?? runId,
      output: result && !result.error ? result.output : null,
      error: result?.error?.message ?? (result ? null : 'The continued run ended without a result'),
      nextApprovalId: result?.approval?.id ?? null,
    });
  }
}
