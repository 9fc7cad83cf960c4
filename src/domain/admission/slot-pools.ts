import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Agent } from '../core/agent.entities.js';
import type { Store } from '../ports.js';

/** A numbered concurrency lease this instance holds. */
export interface PooledLease {
  id: string;
  no: number;
}

interface Pool {
  /** Leases no run uses now, with when their last run ended (ms); the most recently used last. */
  idle: (PooledLease & { since: number })[];
  /** Runs of the agent this instance admitted into its leases and that have not ended. */
  busy: number;
}

export interface SlotPoolConfig {
  instanceId: string;
  leaseMs: number;
  /**
   * How long a lease stays with this instance after its run ended, for the agent's next run to take
   * without a statement; 0 gives it back at once.
   */
  idleLeaseMs: number;
}

/**
 * The concurrency leases this instance holds, by agent (docs/decisions.md §23.7). Each is a numbered
 * lease of the agent's N (unique per agent, so every instance's leases together never exceed N);
 * an instance holding k of them admits k runs at once without a statement. A lease whose run ended
 * stays here `idleLeaseMs` for the next run, then goes back in one statement with the other idle
 * ones; every lease held is renewed by one statement a third of the lease length.
 */
export class SlotPools {
  private readonly pools = new Map<string, Pool>();
  private renewal: NodeJS.Timeout | null = null;
  private sweep: NodeJS.Timeout | null = null;
  private readonly held = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: SlotPoolConfig,
  ) {}

  /**
   * Takes a lease this instance already holds for a run of the agent, without a statement: one no
   * run uses and whose number is below `max` (a lowered limit leaves the others to go back).
   * 'full' when this instance's runs alone fill the limit; null when a new lease is needed.
   */
  take(agentId: string, max: number): PooledLease | 'full' | null {
    const pool = this.pools.get(agentId);
    if (!pool) return null;
    if (pool.busy >= max) return 'full';
    for (let i = pool.idle.length - 1; i >= 0; i--) {
      const lease = pool.idle[i]!;
      if (lease.no >= max) continue;
      pool.idle.splice(i, 1);
      pool.busy++;
      return { id: lease.id, no: lease.no };
    }
    return null;
  }

  /** Takes a new numbered lease of the agent's `max` in one statement; null when none is free. */
  async acquire(agent: Agent, max: number, reservedCredits = 0): Promise<PooledLease | null> {
    const now = this.clock.now();
    const id = newId('slot');
    const slot = {
      id,
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      teamId: agent.teamId,
      instanceId: this.config.instanceId,
      reservedCredits,
      expiresAt: this.expiry(),
    };
    const no = await this.store.repos.slots.acquire(slot, max, now);
    if (no === null) return null;
    this.poolOf(agent.id).busy++;
    this.hold(id);
    return { id, no };
  }

  /** A run ended: its lease waits for the agent's next run, or goes back at once (idleLeaseMs 0). */
  async put(agentId: string, lease: PooledLease): Promise<void> {
    const pool = this.poolOf(agentId);
    pool.busy--;
    if (this.config.idleLeaseMs <= 0) {
      this.drop(agentId, pool);
      this.held.delete(lease.id);
      return this.store.repos.slots.release(lease.id);
    }
    pool.idle.push({ ...lease, since: Date.now() });
    this.sweep ??= setInterval(() => void this.giveBackIdle().catch(() => {}), this.config.idleLeaseMs);
    this.sweep.unref();
  }

  /** Runs in flight in this instance's leases (of one agent, when named). */
  busy(agentId?: string): number {
    if (agentId !== undefined) return this.pools.get(agentId)?.busy ?? 0;
    let n = 0;
    for (const pool of this.pools.values()) n += pool.busy;
    return n;
  }

  /** Gives back every lease no run uses (shutdown, tests); runs in flight keep theirs. */
  async close(): Promise<void> {
    await this.giveBackIdle(0);
  }

  /** Gives back the leases idle for `idleMs` or more, in one statement. */
  private async giveBackIdle(idleMs = this.config.idleLeaseMs): Promise<void> {
    const cutoff = Date.now() - idleMs;
    const ids: string[] = [];
    for (const [agentId, pool] of this.pools) {
      const keep = pool.idle.filter((l) => l.since > cutoff);
      for (const l of pool.idle) if (l.since <= cutoff) ids.push(l.id);
      pool.idle = keep;
      this.drop(agentId, pool);
    }
    for (const id of ids) this.held.delete(id);
    await this.store.repos.slots.releaseMany(ids);
  }

  private hold(id: string): void {
    this.held.add(id);
    // Started with the first lease and left running (unreferenced): with none held it writes nothing.
    this.renewal ??= setInterval(
      () => {
        if (this.held.size > 0) void this.store.repos.slots.renewMany([...this.held], this.expiry()).catch(() => {});
      },
      Math.max(50, Math.floor(this.config.leaseMs / 3)),
    );
    this.renewal.unref();
  }

  private expiry(): Date {
    return new Date(this.clock.now().getTime() + this.config.leaseMs);
  }

  private poolOf(agentId: string): Pool {
    let pool = this.pools.get(agentId);
    if (!pool) this.pools.set(agentId, (pool = { idle: [], busy: 0 }));
    return pool;
  }

  private drop(agentId: string, pool: Pool): void {
    if (pool.busy <= 0 && pool.idle.length === 0) this.pools.delete(agentId);
  }
}
