import { expect } from 'chai';
import { validateFilter, validateSort } from '../../src/domain/documents/record-filter.js';
import { decodeCursor, encodeCursor } from '../../src/domain/documents/record-cursor.js';
import type { FieldDef } from '../../src/domain/documents/document.entities.js';

// The shape rules of record filters, sorts and cursors, without a database: what each operator
// accepts, how values are counted against the bound, and that a cursor only fits its own query.

const FIELDS: FieldDef[] = [
  { name: 'title', type: 'STRING', required: true },
  { name: 'score', type: 'NUMBER', required: false },
  { name: 'due', type: 'DATETIME', required: false },
  { name: 'meta', type: 'JSON', required: false },
];

describe('record filters, sorts and cursors (shape rules)', () => {
  it('a value, a list and an operator object become conditions; eq is the same as a value', () => {
    expect(validateFilter(FIELDS, { score: 7 }).score).to.deep.equal([{ op: 'in', type: 'NUMBER', values: [7] }]);
    expect(validateFilter(FIELDS, { score: { eq: 7 } }).score).to.deep.equal([
      { op: 'in', type: 'NUMBER', values: [7] },
    ]);
    expect(validateFilter(FIELDS, { score: { gte: 1, lt: 5 } }).score).to.deep.equal([
      { op: 'gte', type: 'NUMBER', value: 1 },
      { op: 'lt', type: 'NUMBER', value: 5 },
    ]);
    expect(validateFilter(FIELDS, { id: ['rec_1', 'rec_2'] }).id).to.deep.equal([
      { op: 'in', type: 'ID', values: ['rec_1', 'rec_2'] },
    ]);
  });

  it('on a JSON field, an object without operator keys is a value to contain; with one it is operators', () => {
    expect(validateFilter(FIELDS, { meta: { tier: 'gold' } }).meta).to.deep.equal([
      { op: 'in', type: 'JSON', values: [{ tier: 'gold' }] },
    ]);
    expect(validateFilter(FIELDS, { meta: { exists: true } }).meta).to.deep.equal([
      { op: 'exists', type: 'JSON', value: true },
    ]);
    expect(() => validateFilter(FIELDS, { meta: { $eq: 1 } })).to.throw(
      "filter.meta.$eq: unknown operator '$eq' — write 'eq' without '$'",
    );
    // On any other field an object is never a value, so it is always read as operators.
    expect(() => validateFilter(FIELDS, { title: { tier: 'gold' } })).to.throw(
      "filter.title.tier: unknown operator 'tier'",
    );
  });

  it('every operand counts toward the 1,000 values of a filter, a list by its entries', () => {
    const list = Array.from({ length: 998 }, (_, i) => i);
    expect(() => validateFilter(FIELDS, { score: { in: list, gt: 0, lt: 10 } })).to.not.throw();
    expect(() => validateFilter(FIELDS, { score: { in: list, gt: 0, lt: 10 }, title: { contains: 'x' } })).to.throw(
      'filter: at most 1000 values in all, over every field (this one has 1001)',
    );
  });

  it('a sort of one key defaults to ascending; a list keeps its order', () => {
    expect(validateSort(FIELDS, { field: 'score' })).to.deep.equal([
      { field: 'score', type: 'NUMBER', direction: 'asc' },
    ]);
    expect(
      validateSort(FIELDS, [{ field: 'due', direction: 'desc' }, { field: 'title' }]).map(
        (k) => `${k.field} ${k.direction}`,
      ),
    ).to.deep.equal(['due desc', 'title asc']);
    expect(() =>
      validateSort(FIELDS, [{ field: 'title' }, { field: 'score' }, { field: 'due' }, { field: 'title' }]),
    ).to.throw('sort: give 1 to 3 sort keys');
  });

  it('a cursor round-trips for its own query only, and its values must be what the database wrote', () => {
    const filter = validateFilter(FIELDS, { score: { gt: 1 } });
    const sort = validateSort(FIELDS, [{ field: 'score' }, { field: 'due' }]);
    const cursor = encodeCursor({ keys: ['7.5', '2026-11-01T07:30:00.000000Z'], seq: '42' }, filter, sort);
    expect(decodeCursor(cursor, filter, sort)).to.deep.equal({
      keys: ['7.5', '2026-11-01T07:30:00.000000Z'],
      seq: '42',
    });
    expect(decodeCursor(encodeCursor({ keys: [null, null], seq: '1' }, filter, sort), filter, sort).keys).to.deep.equal(
      [null, null],
    );
    expect(() => decodeCursor(cursor, validateFilter(FIELDS, { score: { gt: 2 } }), sort)).to.throw(
      'cursor: belongs to a query with another filter or sort',
    );
    expect(() => decodeCursor(cursor, filter, sort.slice(0, 1))).to.throw(
      'cursor: belongs to a query with another filter or sort',
    );
    for (const keys of [['seven', '2026-11-01T07:30:00Z'], ['7', 'yesterday'], ['7', '2026-02-30T00:00:00Z'], ['7']]) {
      expect(
        () => decodeCursor(encodeCursor({ keys, seq: '1' }, filter, sort), filter, sort),
        JSON.stringify(keys),
      ).to.throw('cursor: must be the nextCursor of a previous page');
    }
    expect(() =>
      decodeCursor(encodeCursor({ keys: ['7', null], seq: '1 or 1=1' }, filter, sort), filter, sort),
    ).to.throw('cursor: must be the nextCursor');
    // Past the largest insertion number the database can hold: refused here, not a failed cast there.
    expect(() =>
      decodeCursor(encodeCursor({ keys: ['7', null], seq: '9999999999999999999' }, filter, sort), filter, sort),
    ).to.throw('cursor: must be the nextCursor');
  });

  it('a cursor that is not a nextCursor of this service is refused, whatever its shape', () => {
    const filter = validateFilter(FIELDS, {});
    const sort = validateSort(FIELDS, [{ field: 'score' }, { field: 'title' }]);
    const flags: FieldDef[] = [{ name: 'ok', type: 'BOOLEAN', required: false }];
    const flagSort = validateSort(flags, { field: 'ok' });
    const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
    const good = encodeCursor({ keys: ['7', 'x'], seq: '3' }, filter, sort);
    const q = (JSON.parse(Buffer.from(good, 'base64url').toString()) as { q: string }).q;
    const refusedCursors: [string, unknown][] = [
      ['empty', ''],
      ['a number', 42],
      ['not JSON', b64('{"k":')],
      ['JSON null', b64(null)],
      ['a JSON string', b64('"x"')],
      ['no fingerprint', b64({ k: ['7', 'x'], s: '3' })],
      ['keys not a list', b64({ k: 'x', s: '3', q })],
      ['too few keys', b64({ k: ['7'], s: '3', q })],
      ['a key that is a number', b64({ k: [7, 'x'], s: '3', q })],
      ['no insertion number', b64({ k: ['7', 'x'], q })],
      ['a number key with a trailing part', b64({ k: ['7x', 'x'], s: '3', q })],
      ['a number key with a leading part', b64({ k: ['x7', 'x'], s: '3', q })],
      ['a number key with an empty fraction', b64({ k: ['7.', 'x'], s: '3', q })],
      ['a number key longer than a number can be', b64({ k: ['1'.repeat(1001), 'x'], s: '3', q })],
      ['over 32,000 characters', good + 'A'.repeat(32_000)],
    ];
    for (const [label, cursor] of refusedCursors) {
      expect(() => decodeCursor(cursor, filter, sort), label).to.throw(
        'cursor: must be the nextCursor of a previous page',
      );
    }
    // What the database writes is taken back: several digits, a fraction of several digits, a sign.
    for (const n of ['-12', '12.25', '0.125', '1'.repeat(1000)]) {
      expect(decodeCursor(encodeCursor({ keys: [n, 'x'], seq: '3' }, filter, sort), filter, sort).keys[0], n).to.equal(
        n,
      );
    }
    expect(
      decodeCursor(encodeCursor({ keys: ['true'], seq: '1' }, filter, flagSort), filter, flagSort).keys,
    ).to.deep.equal(['true']);
    expect(() => decodeCursor(encodeCursor({ keys: ['yes'], seq: '1' }, filter, flagSort), filter, flagSort)).to.throw(
      'cursor: must be the nextCursor',
    );
    // The fingerprint is of the filter and the sort both: the same sort over another filter does not fit.
    expect(() => decodeCursor(good, validateFilter(FIELDS, { title: 'x' }), sort)).to.throw(
      'cursor: belongs to a query with another filter or sort',
    );
    expect(() =>
      decodeCursor(good, filter, validateSort(FIELDS, [{ field: 'score' }, { field: 'title', direction: 'desc' }])),
    ).to.throw('cursor: belongs to a query');
  });

  it('a sort that cannot be used is refused naming the part at fault; no sort or a null sort keeps insertion order', () => {
    expect(validateSort(FIELDS, undefined)).to.deep.equal([]);
    expect(validateSort(FIELDS, null)).to.deep.equal([]);
    const cases: [unknown, string][] = [
      [[], 'sort: give 1 to 3 sort keys'],
      [[{ field: 'title' }, { field: 'score' }, { field: 'due' }], ''],
      [{ field: 'title', order: 'asc' }, "sort.order: unknown sort option 'order' (options: field, direction)"],
      [{ field: 'nope' }, "sort.field: unknown field 'nope'"],
      [{ field: 42 }, "sort.field: unknown field '42'"],
      [
        { field: 'meta' },
        "sort.field: JSON field 'meta' cannot be sorted (sortable: string, number, datetime, boolean)",
      ],
      [[{ field: 'title' }, { field: 'score', direction: 'up' }], 'sort.1.direction: must be "asc" or "desc"'],
    ];
    for (const [sort, message] of cases) {
      if (message === '') expect(validateSort(FIELDS, sort)).to.have.length(3);
      else expect(() => validateSort(FIELDS, sort), JSON.stringify(sort)).to.throw(message);
    }
  });
});
