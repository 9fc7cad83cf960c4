import { expect } from 'chai';
import { decodeCursor, encodeCursor, validateFilter, validateSort } from '../../src/domain/documents/record-filter.js';
import type { FieldDef } from '../../src/domain/entities.js';

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
    expect(validateFilter(FIELDS, { score: { eq: 7 } }).score).to.deep.equal([{ op: 'in', type: 'NUMBER', values: [7] }]);
    expect(validateFilter(FIELDS, { score: { gte: 1, lt: 5 } }).score).to.deep.equal([
      { op: 'gte', type: 'NUMBER', value: 1 },
      { op: 'lt', type: 'NUMBER', value: 5 },
    ]);
    expect(validateFilter(FIELDS, { id: ['rec_1', 'rec_2'] }).id).to.deep.equal([{ op: 'in', type: 'ID', values: ['rec_1', 'rec_2'] }]);
  });

  it('on a JSON field, an object without operator keys is a value to contain; with one it is operators', () => {
    expect(validateFilter(FIELDS, { meta: { tier: 'gold' } }).meta).to.deep.equal([{ op: 'in', type: 'JSON', values: [{ tier: 'gold' }] }]);
    expect(validateFilter(FIELDS, { meta: { exists: true } }).meta).to.deep.equal([{ op: 'exists', type: 'JSON', value: true }]);
    expect(() => validateFilter(FIELDS, { meta: { $eq: 1 } })).to.throw("filter.meta.$eq: unknown operator '$eq' — write 'eq' without '$'");
    // On any other field an object is never a value, so it is always read as operators.
    expect(() => validateFilter(FIELDS, { title: { tier: 'gold' } })).to.throw("filter.title.tier: unknown operator 'tier'");
  });

  it('every operand counts toward the 1,000 values of a filter, a list by its entries', () => {
    const list = Array.from({ length: 998 }, (_, i) => i);
    expect(() => validateFilter(FIELDS, { score: { in: list, gt: 0, lt: 10 } })).to.not.throw();
    expect(() => validateFilter(FIELDS, { score: { in: list, gt: 0, lt: 10 }, title: { contains: 'x' } })).to.throw('filter: at most 1000 values in all, over every field (this one has 1001)');
  });

  it('a sort of one key defaults to ascending; a list keeps its order', () => {
    expect(validateSort(FIELDS, { field: 'score' })).to.deep.equal([{ field: 'score', type: 'NUMBER', direction: 'asc' }]);
    expect(validateSort(FIELDS, [{ field: 'due', direction: 'desc' }, { field: 'title' }]).map((k) => `${k.field} ${k.direction}`)).to.deep.equal(['due desc', 'title asc']);
    expect(() => validateSort(FIELDS, [{ field: 'title' }, { field: 'score' }, { field: 'due' }, { field: 'title' }])).to.throw('sort: give 1 to 3 sort keys');
  });

  it('a cursor round-trips for its own query only, and its values must be what the database wrote', () => {
    const filter = validateFilter(FIELDS, { score: { gt: 1 } });
    const sort = validateSort(FIELDS, [{ field: 'score' }, { field: 'due' }]);
    const cursor = encodeCursor({ keys: ['7.5', '2026-11-01T07:30:00.000000Z'], seq: '42' }, filter, sort);
    expect(decodeCursor(cursor, filter, sort)).to.deep.equal({ keys: ['7.5', '2026-11-01T07:30:00.000000Z'], seq: '42' });
    expect(decodeCursor(encodeCursor({ keys: [null, null], seq: '1' }, filter, sort), filter, sort).keys).to.deep.equal([null, null]);
    expect(() => decodeCursor(cursor, validateFilter(FIELDS, { score: { gt: 2 } }), sort)).to.throw('cursor: belongs to a query with another filter or sort');
    expect(() => decodeCursor(cursor, filter, sort.slice(0, 1))).to.throw('cursor: belongs to a query with another filter or sort');
    for (const keys of [['seven', '2026-11-01T07:30:00Z'], ['7', 'yesterday'], ['7', '2026-02-30T00:00:00Z'], ['7']]) {
      expect(() => decodeCursor(encodeCursor({ keys, seq: '1' }, filter, sort), filter, sort), JSON.stringify(keys)).to.throw('cursor: must be the nextCursor of a previous page');
    }
    expect(() => decodeCursor(encodeCursor({ keys: ['7', null], seq: '1 or 1=1' }, filter, sort), filter, sort)).to.throw('cursor: must be the nextCursor');
    // Past the largest insertion number the database can hold: refused here, not a failed cast there.
    expect(() => decodeCursor(encodeCursor({ keys: ['7', null], seq: '9999999999999999999' }, filter, sort), filter, sort)).to.throw('cursor: must be the nextCursor');
  });
});
