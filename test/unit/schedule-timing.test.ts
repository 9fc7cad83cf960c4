import { expect } from 'chai';
import {
  decideFire,
  latestOccurrence,
  nextOccurrences,
  overlapState,
} from '../../src/domain/schedules/schedule-timing.js';
import { parse } from '../../src/domain/validation.js';
import { scheduleInput, timingOf } from '../../src/domain/schedules/schedule.schemas.js';
import { Invalid } from '../../src/domain/errors.js';

// When schedules fire (issue 54): pure decisions of a schedule and a clock the test sets.

const at = (iso: string) => new Date(iso);
const everyMinute = { cron: '* * * * *', timeZone: 'UTC' };
const GRACE = 10_000;

describe('schedules: occurrences', () => {
  it('a cron expression is read in its time zone (09:00 in Paris is 07:00 UTC in summer, 08:00 in winter)', () => {
    const paris = { cron: '0 9 * * *', timeZone: 'Europe/Paris' };
    expect(nextOccurrences(paris, at('2027-07-01T10:00:00Z'), 2).map((d) => d.toISOString())).to.deep.equal([
      '2027-07-02T07:00:00.000Z',
      '2027-07-03T07:00:00.000Z',
    ]);
    expect(nextOccurrences(paris, at('2027-01-10T10:00:00Z'), 1)[0]!.toISOString()).to.equal(
      '2027-01-11T08:00:00.000Z',
    );
  });

  it('an interval counts from the Unix epoch, so every instance computes the same occurrences', () => {
    const t = { intervalSeconds: 60 };
    expect(nextOccurrences(t, at('2027-01-01T00:00:30Z'), 2).map((d) => d.toISOString())).to.deep.equal([
      '2027-01-01T00:01:00.000Z',
      '2027-01-01T00:02:00.000Z',
    ]);
    expect(latestOccurrence(t, at('2027-01-01T00:01:00Z'))!.toISOString()).to.equal('2027-01-01T00:01:00.000Z');
    expect(latestOccurrence(everyMinute, at('2027-01-01T00:01:59Z'))!.toISOString()).to.equal(
      '2027-01-01T00:01:00.000Z',
    );
  });

  it('an occurrence exactly now is the latest one', () => {
    expect(latestOccurrence(everyMinute, at('2027-01-01T00:05:00Z'))!.toISOString()).to.equal(
      '2027-01-01T00:05:00.000Z',
    );
  });
});

describe('schedules: whether to fire now', () => {
  const since = at('2027-01-01T00:00:00Z');
  const s = (catchUp: boolean) => ({ timing: everyMinute, catchUp });

  it('fires the occurrence just past, once: not again once it is recorded', () => {
    const now = at('2027-01-01T00:10:01Z');
    expect(decideFire(s(false), at('2027-01-01T00:09:00Z'), since, now, GRACE)).to.deep.equal({
      kind: 'fire',
      occurrenceAt: at('2027-01-01T00:10:00Z'),
      late: false,
    });
    expect(decideFire(s(false), at('2027-01-01T00:10:00Z'), since, now, GRACE)).to.deep.equal({ kind: 'none' });
  });

  it('nothing before the schedule was created or last changed', () => {
    expect(decideFire(s(true), null, at('2027-01-01T00:10:30Z'), at('2027-01-01T00:10:45Z'), GRACE)).to.deep.equal({
      kind: 'none',
    });
  });

  it('after every instance was down: the latest missed occurrence fires once, late, with catchUp — never a burst', () => {
    // Down from 00:10:30 to 00:15:20: 00:11 … 00:15 were missed; only 00:15 is considered.
    const d = decideFire(s(true), at('2027-01-01T00:10:00Z'), since, at('2027-01-01T00:15:20Z'), GRACE);
    expect(d).to.deep.equal({ kind: 'fire', occurrenceAt: at('2027-01-01T00:15:00Z'), late: true });
    // Once recorded, nothing more until 00:16.
    expect(decideFire(s(true), at('2027-01-01T00:15:00Z'), since, at('2027-01-01T00:15:21Z'), GRACE).kind).to.equal(
      'none',
    );
  });

  it('without catchUp the missed occurrence is recorded as skipped', () => {
    expect(decideFire(s(false), at('2027-01-01T00:10:00Z'), since, at('2027-01-01T00:15:20Z'), GRACE)).to.deep.equal({
      kind: 'missed',
      occurrenceAt: at('2027-01-01T00:15:00Z'),
    });
  });

  it('overlap: SKIP skips while a run goes on; QUEUE queues one, and skips a second', () => {
    expect(overlapState('SKIP', { running: false, queued: false })).to.equal('RUNNING');
    expect(overlapState('SKIP', { running: true, queued: false })).to.equal('SKIPPED');
    expect(overlapState('QUEUE', { running: true, queued: false })).to.equal('QUEUED');
    expect(overlapState('QUEUE', { running: true, queued: true })).to.equal('SKIPPED');
  });
});

describe('schedules: validation', () => {
  const handler = { script: 'return 1;' };
  const refused = (input: Record<string, unknown>) => {
    try {
      timingOf(parse(scheduleInput, { name: 'n', handler, ...input }, 'input'));
    } catch (err) {
      expect(err).to.be.instanceOf(Invalid);
      return (err as Invalid).field;
    }
    throw new Error('accepted');
  };

  it('refuses a cron expression croner cannot read, an unknown time zone, both timings or neither', () => {
    expect(refused({ cron: 'every day at noon' })).to.equal('input.cron');
    expect(refused({ cron: '* * * * *', timeZone: 'Mars/Olympus_Mons' })).to.equal('input.timeZone');
    expect(refused({ cron: '* * * * *', intervalSeconds: 60 })).to.equal('input.intervalSeconds');
    expect(refused({})).to.equal('input.cron');
    expect(refused({ intervalSeconds: 0 })).to.equal('input.intervalSeconds');
    expect(refused({ intervalSeconds: 60, timeZone: 'UTC' })).to.equal('input.timeZone');
    expect(refused({ intervalSeconds: 60, input: { deep: 'x'.repeat(70_000) } })).to.equal('input.input');
  });

  it('a cron expression without a zone is read in UTC', () => {
    expect(timingOf(parse(scheduleInput, { name: 'n', handler, cron: '0 9 * * 1' }, 'input'))).to.deep.equal({
      cron: '0 9 * * 1',
      timeZone: 'UTC',
    });
  });
});
