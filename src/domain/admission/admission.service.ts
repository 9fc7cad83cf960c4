import { secondsToUtcMidnight, utcDay, type Clock } from '../clock.js';
import { LimitExceeded } from '../errors.js';
import { newId } from '../ids.js';
import type { Agent } from '../model.js';
import type { Store } from '../ports.js';

export interface AdmissionConfig {
  /** Identifies this process in the slots table (diagnostics only). */
  instanceId: string;
  /** How long a concurrency slot lives without renewal; a crashed instance's slots free after this. */
  leaseMs: number;
  /** Retry-After for concurrency refusals. */
  concurrencyRetryAfterSeconds: number;
}

export const DEFAULT_ADMISSION: Omit<AdmissionConfig, 'instanceId'> = { leaseMs: 30_000, concurrencyRetryAfterSeconds: 1 };

/** A held concurrency slot; release it exactly once when the run ends. */
export interface Admission {
  slotId: string | null;
  release(): Promise<void>;
}

/**
 * Admission before a run (DESIGN §5 step 5) and charging after it (step 8). Credit limits compare
 * what the agent, its team and its workspace used today (UTC) with their limits; concurrency counts
 * unexpired slot leases in the database, so every instance sees the same slots. Admissions of one
 * agent are serialised by a database lock, so a burst cannot exceed the concurrency limit, and
 * credit limits can be overshot by at most the runs already in flight (they are charged when done).
 */
export class AdmissionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: AdmissionConfig,
  ) {}

  /** Admits a run or throws LimitExceeded with the reason and the seconds to wait. */
  async admit(agent: Agent): Promise<Admission> {
    const now = this.clock.now();
    const day = utcDay(now);
    const untilMidnight = secondsToUtcMidnight(now);
    const slotId = await this.store.transaction(async (r) => {
      await r.slots.lockAgent(agent.id);
      if (agent.dailyCreditLimit != null && (await r.usage.agentDay(agent.id, day)) >= agent.dailyCreditLimit) {
        throw new LimitExceeded('daily_credit_limit', untilMidnight, `This agent used its daily credit limit of ${agent.dailyCreditLimit}; it resets at 00:00 UTC`);
      }
      if (agent.teamId) {
        const team = await r.teams.get(agent.teamId);
        if (team?.dailyCreditLimit != null && (await r.usage.teamDay(team.id, day)) >= team.dailyCreditLimit) {
          throw new LimitExceeded('team_credit_limit', untilMidnight, `The team's daily credit limit of ${team.dailyCreditLimit} is used up; it resets at 00:00 UTC`);
        }
      }
      const ws = await r.workspaces.get(agent.workspaceId);
      if (ws?.dailyCreditLimit != null && (await r.usage.workspaceDay(ws.id, day)) >= ws.dailyCreditLimit) {
        throw new LimitExceeded('workspace_credit_limit', untilMidnight, `The workspace's daily credit limit of ${ws.dailyCreditLimit} is used up; it resets at 00:00 UTC`);
      }
      if (agent.maxConcurrentRequests == null) return null;
      if ((await r.slots.countActive(agent.id, now)) >= agent.maxConcurrentRequests) {
        throw new LimitExceeded(
          'concurrency_limit',
          this.config.concurrencyRetryAfterSeconds,
          `This agent is already handling ${agent.maxConcurrentRequests} requests, its limit; retry shortly`,
        );
      }
      const id = newId('slot');
      await r.slots.insert({ id, agentId: agent.id, instanceId: this.config.instanceId, expiresAt: new Date(now.getTime() + this.config.leaseMs) });
      return id;
    });
    if (!slotId) return { slotId: null, release: async () => {} };
    return this.hold(slotId);
  }

  /** Adds a finished run's credits to the agent's day (and so to its team's and workspace's). */
  async charge(agent: Agent, credits: number): Promise<void> {
    await this.store.repos.usage.charge({ agentId: agent.id, workspaceId: agent.workspaceId, teamId: agent.teamId, day: utcDay(this.clock.now()), credits });
  }

  /** Keeps the lease alive while the run lasts (renewed at a third of the lease). */
  private hold(slotId: string): Admission {
    const slots = this.store.repos.slots;
    const timer = setInterval(() => {
      slots.renew(slotId, new Date(this.clock.now().getTime() + this.config.leaseMs)).catch(() => {});
    }, Math.max(50, Math.floor(this.config.leaseMs / 3)));
    timer.unref();
    let released = false;
    return {
      slotId,
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        await slots.release(slotId);
      },
    };
  }
}
