import type { Clock } from '../clock.js';
import { Forbidden, Invalid, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import type { ModelReferences } from '../models/model-references.js';
import { loadAgent, readableAgentIds, VIEWER_READ_ONLY } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import type { ScriptCheck } from '../entries/script-check.js';
import { checkModelOverride } from '../entries/entry.schemas.js';
import { parse, stripUndefined } from '../validation.js';
import type { Schedule, ScheduleFire } from './schedule.entities.js';
import { inputOf, MAX_FIRES_SHOWN, scheduleInput, schedulePatch, timingOf } from './schedule.schemas.js';
import { nextOccurrences } from './schedule-timing.js';

/**
 * An agent's schedules (issue 54): members (ADMIN, MEMBER) and the agent itself with Endpoint
 * Management manage them (policy action `manageSurfaces`); whoever may read the agent reads them,
 * their next fires and their recent fires. A script handler is compiled before anything is saved.
 */
export class ScheduleService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly scripts: ScriptCheck,
    private readonly models: ModelReferences,
  ) {}

  /** Adds a schedule; its name is unique per agent (Conflict). */
  async add(p: Principal, agentId: string, input: unknown): Promise<Schedule> {
    // A viewer is refused before the input is read.
    refuseViewer(p);
    const v = parse(scheduleInput, input, 'input');
    const timing = timingOf(v);
    checkModelOverride(v.handler, v.modelOverride ?? null);
    await this.scripts.check(v.handler, p.workspaceId);
    return this.store.transaction(async (r) => {
      const agent = await loadAgent(r, p, agentId, 'manageSurfaces');
      await this.models.check(r, p.workspaceId, v.modelOverride, 'input.modelOverride');
      const now = this.clock.now();
      return r.schedules.insert({
        id: newId('sch'),
        workspaceId: agent.workspaceId,
        agentId: agent.id,
        name: v.name,
        timing,
        handler: v.handler,
        modelOverride: v.modelOverride ?? null,
        input: inputOf(v.input),
        enabled: v.enabled ?? true,
        catchUp: v.catchUp ?? false,
        overlap: v.overlap ?? 'SKIP',
        createdAt: now,
        updatedAt: now,
      });
    });
  }

  /** Changes a schedule; its occurrences count from now (none before the change is caught up). */
  async update(p: Principal, id: string, input: unknown): Promise<Schedule> {
    refuseViewer(p);
    const v = stripUndefined(parse(schedulePatch, input, 'input'));
    await this.scripts.check(v.handler, p.workspaceId);
    return this.store.transaction(async (r) => {
      const current = await this.load(p, id, r);
      const { cron, timeZone, intervalSeconds, input: given, ...rest } = v;
      const next: Schedule = {
        ...current,
        ...rest,
        timing: timingOf({ cron, timeZone, intervalSeconds }, current.timing),
        input: given === undefined ? current.input : inputOf(given),
        updatedAt: this.clock.now(),
      };
      checkModelOverride(next.handler, next.modelOverride);
      await this.models.check(r, p.workspaceId, v.modelOverride, 'input.modelOverride');
      return r.schedules.update(next);
    });
  }

  /** Removes a schedule and its recorded fires (a run it started goes on). */
  async remove(p: Principal, id: string): Promise<boolean> {
    refuseViewer(p);
    return this.store.transaction(async (r) => {
      await this.load(p, id, r);
      return r.schedules.delete(id);
    });
  }

  /** The schedules of those agents the principal may read (others are left out), in one read. */
  async listForAgents(p: Principal, agentIds: readonly string[]): Promise<Schedule[]> {
    const readable = await readableAgentIds(this.store.repos, p, agentIds);
    if (!readable.size) return [];
    return this.store.repos.schedules.listByAgents([...readable]);
  }

  /** The next `count` (1 to 50) times the schedule fires, from now. */
  nextFires(s: Schedule, count: number): Date[] {
    return nextOccurrences(s.timing, this.clock.now(), boundedCount(count, 'count'));
  }

  /** The schedule's latest `first` (1 to 50) recorded fires, newest first. */
  fires(s: Schedule, first: number): Promise<ScheduleFire[]> {
    return this.store.repos.schedules.listFires(s.id, boundedCount(first, 'first'));
  }

  /** Deletes finished fires older than `days`, each schedule's latest kept (housekeeping). */
  pruneFires(days: number): Promise<number> {
    return this.store.repos.schedules.pruneFires(new Date(this.clock.now().getTime() - days * 86_400_000));
  }

  private async load(p: Principal, id: string, r = this.store.repos): Promise<Schedule> {
    const s = await r.schedules.get(id);
    if (!s) throw new NotFound('Schedule', id);
    try {
      await loadAgent(r, p, s.agentId, 'manageSurfaces');
    } catch (err) {
      // A schedule of an agent the caller cannot see does not exist for them.
      if (err instanceof NotFound) throw new NotFound('Schedule', id);
      throw err;
    }
    return s;
  }
}

function boundedCount(n: number, field: string): number {
  if (!Number.isInteger(n) || n < 1 || n > MAX_FIRES_SHOWN)
    throw new Invalid(`must be between 1 and ${MAX_FIRES_SHOWN}`, field);
  return n;
}

/** A VIEWER changes no schedule (other principals, such as the agent's own tools, are checked on its agent). */
function refuseViewer(p: Principal): void {
  if (p.kind === 'member' && p.role === 'VIEWER') throw new Forbidden(VIEWER_READ_ONLY);
}
