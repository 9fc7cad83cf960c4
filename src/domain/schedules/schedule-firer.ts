import type { Clock } from '../clock.js';
import type { Store } from '../ports.js';
import type { Schedule, ScheduleFire } from './schedule.entities.js';
import type { ActiveSchedule } from './schedule.ports.js';
import type { EventOutbox } from '../events/event.ports.js';
import { lostFireRecord, runFire, type ScheduleRuns } from './schedule-fire.task.js';
import { decideFire, overlapState } from './schedule-timing.js';

export interface ScheduleFirerOptions {
  /** This instance, as its claims name it. */
  instanceId: string;
  /** How long a claim holds without renewal: a fire whose instance stopped is marked lost after it. */
  leaseMs: number;
  /** How late an occurrence may be seen and still fire on time (later: it was missed). */
  graceMs: number;
}

export const DEFAULT_SCHEDULE_FIRER: Omit<ScheduleFirerOptions, 'instanceId'> = { leaseMs: 60_000, graceMs: 10_000 };

/**
 * One instance's part in firing schedules (docs/decisions.md, "Schedules (issue 54)"). Each `pass`
 * marks fires whose instance stopped as lost, then, for every enabled schedule of an agent whose
 * SCHEDULE surface is on, decides from the clock whether an occurrence is due, records it (the
 * insert on the fire's key decides which instance fires it) and runs the fires it won, and the
 * queued fires it takes, without waiting for them. Every instance runs one; they share nothing
 * but the database.
 */
export class ScheduleFirer {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly calls: ScheduleRuns,
    private readonly opts: ScheduleFirerOptions,
    /** Told about failures of the pass that nothing else reports (the loop logs them). */
    private readonly onError: (err: unknown) => void = () => {},
    /** Where `schedule.fired` goes (outbound event webhooks); none in tests that need none. */
    private readonly events?: EventOutbox,
  ) {}

  /** Fires running here now. */
  get running(): number {
    return this.inFlight.size;
  }

  /** One pass over every schedule. */
  async pass(): Promise<void> {
    const repo = this.store.repos.schedules;
    const now = this.clock.now();
    for (const lost of await repo.markLost(now)) await this.traceLost(lost);
    for (const active of await repo.listActive(now)) {
      try {
        await this.consider(active, now);
      } catch (err) {
        this.onError(err);
      }
    }
  }

  /** Waits for the fires running here, at most until `ms` have passed. */
  async drain(ms: number): Promise<void> {
    if (!this.inFlight.size) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
  }

  private async consider(a: ActiveSchedule, now: Date): Promise<void> {
    const s = a.schedule;
    const agent = await this.store.repos.agents.get(s.agentId);
    // A schedule fires only while its agent's SCHEDULE surface is on; occurrences meanwhile are not recorded.
    if (!agent?.surfaces.SCHEDULE.enabled) return;
    const repo = this.store.repos.schedules;
    if (a.queued && !a.running) {
      const taken = await repo.takeQueued(s.id, this.opts.instanceId, this.leaseFrom(now));
      if (taken) this.start(s, taken);
      return;
    }
    const decision = decideFire(s, a.lastOccurrenceAt, s.updatedAt, now, this.opts.graceMs);
    if (decision.kind === 'none') return;
    const fire: ScheduleFire = {
      scheduleId: s.id,
      agentId: s.agentId,
      occurrenceAt: decision.occurrenceAt,
      state: 'SKIPPED',
      late: decision.kind === 'fire' && decision.late,
      claimedBy: this.opts.instanceId,
      leaseUntil: null,
      runId: null,
      error: null,
      refusal: null,
      createdAt: now,
      finishedAt: now,
    };
    if (decision.kind === 'missed') {
      await repo.recordFire({ ...fire, error: 'Missed while no instance was running; the schedule does not catch up' });
      return;
    }
    const state = overlapState(s.overlap, a);
    if (state === 'RUNNING') {
      const claimed = { ...fire, state, leaseUntil: this.leaseFrom(now), finishedAt: null };
      // Another instance recorded it first (or a fire of the schedule started meanwhile): not ours.
      if (await repo.recordFire(claimed)) this.start(s, claimed);
      return;
    }
    if (state === 'QUEUED' && (await repo.recordFire({ ...fire, state, finishedAt: null }))) return;
    await repo.recordFire({ ...fire, error: 'The previous run of this schedule was still going' });
  }

  private start(s: Schedule, f: ScheduleFire): void {
    const p = this.fire(s, f).catch(this.onError);
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async fire(s: Schedule, f: ScheduleFire): Promise<void> {
    const repo = this.store.repos.schedules;
    const me = this.opts.instanceId;
    const agent = await this.store.repos.agents.get(s.agentId);
    // The lease is renewed while the run goes on: only a fire whose instance stopped runs out of it.
    const renewal = setInterval(
      () => void repo.renew(s.id, f.occurrenceAt, me, this.leaseFrom(this.clock.now())).catch(this.onError),
      Math.max(50, Math.floor(this.opts.leaseMs / 3)),
    );
    renewal.unref();
    try {
      const ending = agent
        ? await runFire(this.calls, agent, s, f, () => this.clock.now(), this.events)
        : { state: 'FAILED' as const, runId: null, error: 'The agent was removed', finishedAt: this.clock.now() };
      await repo.finish(s.id, f.occurrenceAt, me, ending);
    } finally {
      clearInterval(renewal);
    }
  }

  private async traceLost(f: ScheduleFire): Promise<void> {
    const [agent, s] = await Promise.all([
      this.store.repos.agents.get(f.agentId),
      this.store.repos.schedules.get(f.scheduleId),
    ]);
    if (agent) this.calls.received(agent, lostFireRecord(s, f));
  }

  private leaseFrom(now: Date): Date {
    return new Date(now.getTime() + this.opts.leaseMs);
  }
}
