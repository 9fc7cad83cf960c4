import { expect } from 'chai';
import { Invalid } from '../../src/domain/errors.js';
import { hasExpired, keyExpiry, MAX_KEY_LIFETIME_DAYS } from '../../src/domain/keys/key-expiry.js';

const NOW = new Date('2027-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);
const DAY = 24 * 3_600_000;

function refusal(expiresAt: unknown): Invalid {
  try {
    keyExpiry(expiresAt, NOW);
  } catch (err) {
    expect(err).to.be.instanceOf(Invalid);
    expect((err as Invalid).field).to.equal('expiresAt');
    return err as Invalid;
  }
  throw new Error(`expected ${String(expiresAt)} to be refused`);
}

describe('key expiry rule', () => {
  it('no expiry is null', () => {
    expect(keyExpiry(undefined, NOW)).to.equal(null);
    expect(keyExpiry(null, NOW)).to.equal(null);
  });

  it('takes an instant from a minute to 365 days ahead, as a Date or an ISO string', () => {
    expect(keyExpiry(at(60_000), NOW)!.toISOString()).to.equal('2027-03-01T12:01:00.000Z');
    expect(keyExpiry(at(12 * 3_600_000).toISOString(), NOW)!.toISOString()).to.equal('2027-03-02T00:00:00.000Z');
    expect(keyExpiry(at(MAX_KEY_LIFETIME_DAYS * DAY), NOW)!.getTime()).to.equal(at(365 * DAY).getTime());
  });

  it('refuses the past, now, less than a minute ahead, more than 365 days ahead, and what is not a date', () => {
    expect(refusal(at(-1)).message).to.match(/at least 60 seconds in the future/);
    expect(refusal(NOW).message).to.match(
      /at least 60 seconds in the future \(it is 2027-03-01T12:00:00.000Z, now is 2027-03-01T12:00:00.000Z\)/,
    );
    expect(refusal(at(59_999)).message).to.match(/at least 60 seconds/);
    expect(refusal(at(365 * DAY + 1)).message).to.equal(
      'expiresAt: must be at most 365 days ahead (by 2028-02-29T12:00:00.000Z); for a key that does not expire, leave expiresAt out',
    );
    expect(refusal('next week').message).to.match(/must be a date and time/);
    expect(refusal(42).message).to.match(/must be a date and time/);
  });

  it('a key is expired from its expiry instant on, never without one', () => {
    const expiry = at(DAY);
    expect(hasExpired(expiry, at(DAY - 1))).to.equal(false);
    expect(hasExpired(expiry, expiry)).to.equal(true);
    expect(hasExpired(expiry, at(DAY + 1))).to.equal(true);
    expect(hasExpired(null, at(100 * 365 * DAY))).to.equal(false);
  });
});
