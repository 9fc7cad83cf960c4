import { expect } from 'chai';
import {
  loggable,
  MAX_LOGGED_BODY,
  MAX_LOGGED_DEPTH,
  TOO_DEEP_MARKER,
  withinDepth,
  withoutBodies,
} from '../../src/domain/activity/activity-log.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/domain/json-depth.js';
import type { ActivityEntry } from '../../src/domain/activity/activity.entities.js';
import { storable, storableText } from '../../src/infra/activity/buffered-sink.js';

// What keeps an activity entry storable whatever a request held: unpaired surrogates and U+0000
// become U+FFFD, values deeper than the log keeps are cut with a marker, and surface bodies deeper
// than MAX_JSON_DEPTH are recognised from their text without recursion.

/** `[[[…leaf…]]]` nested `levels` deep, built without recursion. */
function nestedValue(levels: number, leaf: unknown = 'leaf'): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

const isContainer = (x: unknown): x is object => x !== null && typeof x === 'object';

/** Levels of arrays and objects, counted level by level (no recursion). */
function depthOf(v: unknown): number {
  let depth = 0;
  for (
    let level = [v].filter(isContainer);
    level.length;
    level = level.flatMap((x) => Object.values(x)).filter(isContainer)
  )
    depth++;
  return depth;
}

describe('activity log: storable text', () => {
  it('replaces a lone high surrogate, a lone low surrogate and U+0000 with U+FFFD', () => {
    expect(storableText('a\ud800b')).to.equal('a\uFFFDb');
    expect(storableText('a\udc00b')).to.equal('a\uFFFDb');
    expect(storableText('\ud800')).to.equal('\uFFFD');
    expect(storableText('end\ud83d')).to.equal('end\uFFFD');
    expect(storableText('a\u0000b')).to.equal('a\uFFFDb');
  });

  it('keeps surrogate pairs (emoji, astral characters) and plain text as they are', () => {
    expect(storableText('ok 😀 𝄞 ü')).to.equal('ok 😀 𝄞 ü');
    expect(storableText('')).to.equal('');
  });

  it('pairs each high surrogate with the low one right after it, no more', () => {
    // high high low: the first high is alone; the pair after it stays.
    expect(storableText('\ud800\ud83d\ude00')).to.equal('\uFFFD😀');
    // high low low: the second low is alone.
    expect(storableText('\ud83d\ude00\ude00')).to.equal('😀\uFFFD');
    // low high: both alone (the order is wrong).
    expect(storableText('\ude00\ud83d')).to.equal('\uFFFD\uFFFD');
  });

  it('the result stringifies to JSON PostgreSQL accepts: no \\ud8xx escape remains', () => {
    expect(JSON.stringify(storableText('x\ud800y'))).to.equal('"x\uFFFDy"');
    expect(JSON.stringify(storableText('x\ud800y'))).to.not.match(/\\ud8/i);
  });

  it('scrubs every string of an entry, keys included, and keeps dates, numbers and nulls', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    const entry = {
      error: 'bad \ud800',
      logs: ['line \u0000', 'fine'],
      requestBody: { 'k\udc00': ['v\ud800', 1, null, true] },
      createdAt: at,
      credits: 0.5,
    };
    const out = storable(entry);
    expect(out).to.deep.equal({
      error: 'bad \uFFFD',
      logs: ['line \uFFFD', 'fine'],
      requestBody: { 'k\uFFFD': ['v\uFFFD', 1, null, true] },
      createdAt: at,
      credits: 0.5,
    });
    expect(out.createdAt).to.be.instanceOf(Date);
  });
});

describe('activity log: bodies deeper than the log keeps', () => {
  it(`keeps a value of exactly ${MAX_LOGGED_DEPTH} levels whole`, () => {
    const value = nestedValue(MAX_LOGGED_DEPTH);
    const r = withinDepth(value);
    expect(r.cut).to.equal(false);
    expect(r.value).to.deep.equal(value);
  });

  it(`cuts level ${MAX_LOGGED_DEPTH + 1} and below to the marker and says so`, () => {
    const r = withinDepth(nestedValue(MAX_LOGGED_DEPTH + 1));
    expect(r.cut).to.equal(true);
    expect(r.value).to.deep.equal(nestedValue(MAX_LOGGED_DEPTH, TOO_DEEP_MARKER));
  });

  it('cuts a 100,000-level value without exhausting the stack, and the result stringifies', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(() => JSON.stringify(deep)).to.throw(RangeError);
    const r = loggable({ body: deep });
    expect(r.truncated).to.equal(true);
    expect(depthOf(r.value)).to.equal(MAX_LOGGED_DEPTH);
    expect(() => JSON.stringify(r.value)).to.not.throw();
  });

  it('cuts objects as well as arrays, keeps a `__proto__` key as a key, and leaves shallow siblings alone', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < MAX_LOGGED_DEPTH + 5; i++) deep = { a: deep };
    const withProto = JSON.parse('{"__proto__": {"x": 1}}') as object;
    const r = withinDepth({ deep, flat: [1, 2, 3], withProto });
    expect(r.cut).to.equal(true);
    expect((r.value as { flat: unknown }).flat).to.deep.equal([1, 2, 3]);
    expect(Object.keys((r.value as { withProto: object }).withProto)).to.deep.equal(['__proto__']);
    expect(Object.getPrototypeOf((r.value as { withProto: object }).withProto)).to.equal(Object.prototype);
    let at = (r.value as { deep: unknown }).deep;
    let levels = 1; // the outer object
    while (at && typeof at === 'object') {
      at = (at as { a: unknown }).a;
      levels++;
    }
    expect(levels).to.equal(MAX_LOGGED_DEPTH);
    expect(at).to.equal(TOO_DEEP_MARKER);
  });

  it('a cut body is marked truncated; an untouched one is not; a large one is still a text preview', () => {
    expect(loggable({ a: [1] })).to.deep.equal({ value: { a: [1] }, truncated: false });
    expect(loggable(nestedValue(MAX_LOGGED_DEPTH + 1)).truncated).to.equal(true);
    const big = loggable({ s: 'x'.repeat(MAX_LOGGED_BODY) });
    expect(big.truncated).to.equal(true);
    expect(big.value).to.be.a('string');
  });

  it('an entry without bodies keeps its status and error and is marked truncated', () => {
    const entry = {
      status: 500,
      error: 'boom',
      requestBody: { a: 1 },
      response: { b: 2 },
      requestHeaders: { x: 'y' },
      logs: ['l'],
      truncated: false,
    } as unknown as ActivityEntry;
    expect(withoutBodies(entry)).to.deep.include({
      status: 500,
      error: 'boom',
      requestBody: null,
      response: null,
      requestHeaders: null,
      logs: null,
      truncated: true,
    });
  });
});

describe('surface bodies: nesting depth measured on the text', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it(`${MAX_JSON_DEPTH} levels are within the limit, ${MAX_JSON_DEPTH + 1} are not`, () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).to.equal(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).to.equal(true);
    expect(nestsDeeperThan(`{"a":${nested(MAX_JSON_DEPTH - 1)}}`, MAX_JSON_DEPTH)).to.equal(false);
    expect(nestsDeeperThan(`{"a":{"b":${nested(MAX_JSON_DEPTH - 1)}}}`, MAX_JSON_DEPTH)).to.equal(true);
  });

  it('counts nesting, not containers: many siblings at one level are shallow', () => {
    expect(nestsDeeperThan(`[${Array(10_000).fill('[]').join(',')}]`, 2)).to.equal(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(`["${'['.repeat(500)}"]`, 1)).to.equal(false);
    expect(nestsDeeperThan(`{"k\\"[[[": "v\\\\", "w": "[[[\\"{{{"}`, 1)).to.equal(false);
    // After an escaped backslash the quote closes the string: the brackets that follow count.
    expect(nestsDeeperThan(`["\\\\", [[1]]]`, 2)).to.equal(true);
  });

  it('measures a 1 MiB body of brackets without recursion', () => {
    expect(nestsDeeperThan('['.repeat(1024 * 1024), MAX_JSON_DEPTH)).to.equal(true);
  });
});
