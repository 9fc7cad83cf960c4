import { secondsToUtcMidnight, utcDay } from '../clock.js';
import { LimitExceeded, type LimitReason } from '../errors.js';
import type { Agent } from '../core/agent.entities.js';
import type { Team, Workspace } from '../workspace/workspace.entities.js';
import type { Repositories } from '../ports.js';
import type { CreditScope } from './admission.ports.js';

/**
 * The agent's team and workspace, whose daily credit limits apply to its runs besides its own: read
 * once per admission (from the store's cache), then used by every check of it.
 */
export interface CreditScopes {
  team: Team | null;
  workspace: Workspace | null;
}

/** A daily credit limit that applies to a run, and how to word its refusals. */
export interface CreditLimit {
  scope: CreditScope;
  limit: number;
  reason: LimitReason;
  usedUp: string;
  held: string;
}

/** Whether a daily credit limit applies to the agent's runs: its own, its team's or its workspace's. */
export function creditLimited(agent: Agent, { team, workspace }: CreditScopes): boolean {
  return agent.dailyCreditLimit != null || team?.dailyCreditLimit != null || workspace?.dailyCreditLimit != null;
}

/** The limits in force, as one string: a credit slice granted under other limits is not used. */
export function limitsKey(agent: Agent, { team, workspace }: CreditScopes): string {
  return `${agent.dailyCreditLimit ?? ''}|${team?.id ?? ''}:${team?.dailyCreditLimit ?? ''}|${workspace?.dailyCreditLimit ?? ''}`;
}

/** The limits that apply to the agent's runs, agent first, with the words of their refusals. */
export function creditLimitsOf(agent: Agent, { team, workspace: ws }: CreditScopes): CreditLimit[] {
  const limits: CreditLimit[] = [];
  if (agent.dailyCreditLimit != null) {
    const l = agent.dailyCreditLimit;
    limits.push({
      scope: { agentId: agent.id },
      limit: l,
      reason: 'daily_credit_limit',
      usedUp: `This agent used its daily credit limit of ${l}; it resets at 00:00 UTC`,
      held: `This agent's daily credit limit of ${l} is held by its runs in flight; retry shortly`,
    });
  }
  if (team?.dailyCreditLimit != null)
    limits.push(sharedLimit({ teamId: team.id }, team.dailyCreditLimit, 'team_credit_limit', 'team'));
  if (ws?.dailyCreditLimit != null)
    limits.push(sharedLimit({ workspaceId: ws.id }, ws.dailyCreditLimit, 'workspace_credit_limit', 'workspace'));
  return limits;
}

/** A team's or a workspace's limit: shared by its agents, worded for whose it is. */
function sharedLimit(scope: CreditScope, l: number, reason: LimitReason, whose: 'team' | 'workspace'): CreditLimit {
  return {
    scope,
    limit: l,
    reason,
    usedUp: `The ${whose}'s daily credit limit of ${l} is used up; it resets at 00:00 UTC`,
    held: `The ${whose}'s daily credit limit of ${l} is held by runs in flight; retry shortly`,
  };
}

/**
 * Locks the team's and the workspace's limits (after the agent's lock, always in this order), so
 * that admissions of their different agents cannot both see the same room under them.
 */
export async function lockLimits(r: Repositories, limits: CreditLimit[]): Promise<void> {
  for (const l of limits) if (!('agentId' in l.scope)) await r.slots.lockLimit(l.scope);
}

/** What is left under the limits: the least of limit − charged today − reserved, and the refusal if none. */
export interface Room {
  credits: number;
  /** Why nothing is left (when `credits` ≤ 0): used up until midnight, or held by runs in flight. */
  refusal: LimitExceeded | null;
  /** The limit found used up by charges alone (remembered until midnight). */
  usedUp: CreditLimit | null;
}

/**
 * The room under every limit, read inside the locked transaction. Reserved is read before charged:
 * a run settling in between (its reservation becomes a charge; on PostgreSQL each statement sees the
 * latest commits) is then counted twice, never missed.
 */
export async function roomUnder(
  r: Repositories,
  limits: CreditLimit[],
  now: Date,
  retryAfterSeconds: number,
): Promise<Room> {
  const day = utcDay(now);
  let credits = Infinity;
  for (const l of limits) {
    const reserved = await r.slots.reserved(l.scope, now);
    const charged = await chargedOn(r, l.scope, day);
    if (charged >= l.limit)
      return { credits: 0, refusal: new LimitExceeded(l.reason, secondsToUtcMidnight(now), l.usedUp), usedUp: l };
    const left = credits6(l.limit - charged - reserved);
    if (left <= 0) return { credits: 0, refusal: new LimitExceeded(l.reason, retryAfterSeconds, l.held), usedUp: null };
    credits = Math.min(credits, left);
  }
  return { credits, refusal: null, usedUp: null };
}

function chargedOn(r: Repositories, scope: CreditScope, day: string): Promise<number> {
  if ('agentId' in scope) return r.usage.agentDay(scope.agentId, day);
  if ('teamId' in scope) return r.usage.teamDay(scope.teamId, day);
  return r.usage.workspaceDay(scope.workspaceId, day);
}

/** Credits as the database stores them (6 decimals), so sums compare exactly with a limit. */
export function credits6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
