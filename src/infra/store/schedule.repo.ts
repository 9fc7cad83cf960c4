import type { Knex } from 'knex';
import type { ScheduleRepo } from '../../domain/schedules/schedule.ports.js';
import type { Schedule } from '../../domain/schedules/schedule.entities.js';
import type { AgentChildRepo } from '../../domain/repo.ports.js';
import { q } from './pg-errors.js';
import { date } from './rows/mapping.js';
import { scheduleFire, scheduleFireRow, schedules } from './rows/schedules.js';

type Conn = Knex | Knex.Transaction;

/** Schedules and their fires (the fires' key is the claim: docs/decisions.md, "Schedules (issue 54)"). */
export function scheduleRepo(db: Conn, base: AgentChildRepo<Schedule>): ScheduleRepo {
  const fires = () => db('schedule_fires');
  return {
    ...base,
    listActive: () =>
      q(async () => {
        const rs = await db('schedules as s')
          .where('s.enabled', true)
          .select(
            's.*',
            db.raw(
              '(select max(f.occurrence_at) from schedule_fires f where f.schedule_id = s.id) as last_occurrence_at',
            ),
            db.raw(
              `exists (select 1 from schedule_fires f where f.schedule_id = s.id and f.state = 'RUNNING') as running`,
            ),
            db.raw(
              `exists (select 1 from schedule_fires f where f.schedule_id = s.id and f.state = 'QUEUED') as queued`,
            ),
          )
          .orderBy([{ column: 's.created_at' }, { column: 's.id' }]);
        return rs.map((r: Record<string, any>) => ({
          schedule: schedules.fromRow(r),
          lastOccurrenceAt: r.last_occurrence_at ? date(r.last_occurrence_at) : null,
          running: !!r.running,
          queued: !!r.queued,
        }));
      }),
    // No conflict target: the key, or the one RUNNING / one QUEUED fire of a schedule, whichever holds.
    recordFire: (f) =>
      q(
        async () =>
          (await fires().insert(scheduleFireRow(f)).onConflict().ignore().returning('schedule_id')).length > 0,
      ),
    takeQueued: (scheduleId, claimedBy, leaseUntil) =>
      q(async () => {
        try {
          const [r] = await fires()
            .where({ schedule_id: scheduleId, state: 'QUEUED' })
            .whereNotExists(
              db('schedule_fires as r')
                .select(db.raw('1'))
                .where({ 'r.schedule_id': scheduleId, 'r.state': 'RUNNING' }),
            )
            .update({ state: 'RUNNING', claimed_by: claimedBy, lease_until: leaseUntil })
            .returning('*');
          return r ? scheduleFire(r) : null;
        } catch (err) {
          // Another instance started a fire of it at the same moment: the one RUNNING index refused this one.
          if ((err as { code?: string }).code === '23505') return null;
          throw err;
        }
      }),
    renew: (scheduleId, occurrenceAt, claimedBy, leaseUntil) =>
      q(
        async () =>
          (
            await fires()
              .where({ schedule_id: scheduleId, occurrence_at: occurrenceAt, state: 'RUNNING', claimed_by: claimedBy })
              .update({ lease_until: leaseUntil })
              .returning('schedule_id')
          ).length > 0,
      ),
    finish: (scheduleId, occurrenceAt, claimedBy, e) =>
      q(
        async () =>
          (
            await fires()
              .where({ schedule_id: scheduleId, occurrence_at: occurrenceAt, state: 'RUNNING', claimed_by: claimedBy })
              .update({
                state: e.state,
                run_id: e.runId,
                error: e.error,
                error_code: e.refusal?.code ?? null,
                error_reason: e.refusal?.reason ?? null,
                finished_at: e.finishedAt,
                lease_until: null,
              })
              .returning('schedule_id')
          ).length > 0,
      ),
    markLost: (now) =>
      q(async () =>
        (
          await fires()
            .where({ state: 'RUNNING' })
            .where('lease_until', '<', now)
            .update({
              state: 'LOST',
              finished_at: now,
              lease_until: null,
              error: 'The instance running this fire stopped before its run ended',
            })
            .returning('*')
        ).map(scheduleFire),
      ),
    listFires: (scheduleId, first) =>
      q(async () =>
        (await fires().where({ schedule_id: scheduleId }).orderBy('occurrence_at', 'desc').limit(first)).map(
          scheduleFire,
        ),
      ),
    pruneFires: (before) =>
      q(
        async () =>
          (
            await fires()
              .whereNotIn('state', ['RUNNING', 'QUEUED'])
              .where('created_at', '<', before)
              // Each schedule's latest fire stays: it is what tells its next occurrence from one already fired.
              .whereRaw(
                'occurrence_at < (select max(g.occurrence_at) from schedule_fires g where g.schedule_id = schedule_fires.schedule_id)',
              )
              .delete()
              .returning('schedule_id')
          ).length,
      ),
  };
}
