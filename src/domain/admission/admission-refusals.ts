import { secondsToUtcMidnight } from '../clock.js';
import { LimitExceeded, type LimitReason } from '../errors.js';
import type { Agent } from '../core/agent.entities.js';
import type { CreditLimit, CreditScopes } from './credit-limits.js';

// The refusals admission gives without a statement: from memory (a daily limit already used up)
// or from what it just found (the concurrency limit, a probe already running).

/** The refusal of a run over the agent's concurrency limit. */
export function concurrencyFull(max: number, retryAfterSeconds: number): LimitExceeded {
  return new LimitExceeded(
    'concurrency_limit',
    retryAfterSeconds,
    `This agent is already handling ${max} requests, its limit; retry shortly`,
  );
}

/** The refusal of a second run of a probe (an agent whose cost per run is not known yet). */
export function probeRefusal(retryAfterSeconds: number): LimitExceeded {
  return new LimitExceeded(
    'concurrency_limit',
    retryAfterSeconds,
    "This agent's cost per run is not known yet (no maxCreditsPerRun guardrail, no run charged this week), so under its credit limits it runs one request at a time until a run is charged; retry shortly",
  );
}

/**
 * The daily limits found used up, by scope (agent, team, workspace): until the next midnight UTC
 * later requests under the same limit are refused from memory.
 */
export class UsedUpLimits {
  private readonly limits = new Map<string, { limit: number; until: number; reason: LimitReason; message: string }>();

  /**
   * A limit found used up stays used up until midnight UTC: charges only add up, and a changed
   * limit is another limit. Later requests are refused from memory, without a statement, as long as
   * the limit is the same.
   */
  refuse(agent: Agent, { team, workspace: ws }: CreditScopes, now: Date): void {
    const t = now.getTime();
    const check = (key: string, limit: number | null | undefined) => {
      const u = this.limits.get(key);
      return u && u.limit === limit && t < u.until ? u : undefined;
    };
    const agentUsedUp = check(`agent:${agent.id}`, agent.dailyCreditLimit);
    const teamUsedUp = team ? check(`team:${team.id}`, team.dailyCreditLimit) : undefined;
    const wsUsedUp = ws ? check(`workspace:${ws.id}`, ws.dailyCreditLimit) : undefined;
    const hit = agentUsedUp ?? teamUsedUp ?? wsUsedUp;
    if (hit) throw new LimitExceeded(hit.reason, secondsToUtcMidnight(now), hit.message);
  }

  /** Remembers a limit found used up, until the next midnight UTC. */
  note(l: CreditLimit, now: Date): void {
    const key =
      'agentId' in l.scope
        ? `agent:${l.scope.agentId}`
        : 'teamId' in l.scope
          ? `team:${l.scope.teamId}`
          : `workspace:${l.scope.workspaceId}`;
    if (this.limits.size >= 10_000) this.limits.clear();
    const until = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    this.limits.set(key, { limit: l.limit, until, reason: l.reason, message: l.usedUp });
  }
}
