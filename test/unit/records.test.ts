import { expect } from 'chai';
import type { FieldDef } from '../../src/domain/documents/document.entities.js';
import { validateFilter } from '../../src/domain/documents/record-filter.js';
import { validatePatch, validateRecord } from '../../src/domain/documents/records.js';

// Field names come from requests, so record maps must not inherit anything: a required field named
// like an Object.prototype member is enforced, and a field named `__proto__` (refused for new
// documents, possible in one stored before that rule) is kept as a value, never as a prototype.

const field = (name: string, type: FieldDef['type'] = 'STRING', required = true): FieldDef => ({
  name,
  type,
  required,
});
/** Objects as JSON.parse builds them: `__proto__` is then an own key. */
const parsed = (json: string) => JSON.parse(json) as Record<string, unknown>;

describe('record validation: field names that are Object.prototype members', () => {
  it('a missing required field named constructor, toString or __proto__ is refused', () => {
    for (const name of ['constructor', 'toString', 'valueOf', '__proto__']) {
      expect(
        () => validateRecord([field(name), field('other', 'NUMBER', false)], { other: 1 }, 'items.0'),
        name,
      ).to.throw(`items.0.${name}: '${name}' is required`);
    }
  });

  it('a field named __proto__ of a stored schema is kept as an own value, in a record, a set and a filter', () => {
    const fields = [field('__proto__', 'JSON')];
    const record = validateRecord(fields, parsed('{"__proto__": {"polluted": true}}'), 'items.0');
    expect(Object.keys(record)).to.deep.equal(['__proto__']);
    expect(JSON.stringify(record)).to.equal('{"__proto__":{"polluted":true}}');
    expect((record as { polluted?: unknown }).polluted).to.equal(undefined);
    expect(JSON.stringify(validatePatch(fields, parsed('{"__proto__": 1}')))).to.equal('{"__proto__":1}');
    expect(Object.keys(validateFilter(fields, parsed('{"__proto__": [1, 2]}')))).to.deep.equal(['__proto__']);
    expect(({} as { polluted?: unknown }).polluted).to.equal(undefined);
  });

  it('a __proto__ key that is not a field is refused as unknown, not dropped', () => {
    const fields = [field('title')];
    expect(() => validateRecord(fields, parsed('{"title": "x", "__proto__": {"a": 1}}'), 'items.3')).to.throw(
      "items.3.__proto__: unknown field '__proto__'",
    );
    expect(() => validatePatch(fields, parsed('{"__proto__": 1}'))).to.throw(
      "set.__proto__: unknown field '__proto__'",
    );
    expect(() => validateFilter(fields, parsed('{"__proto__": 1}'))).to.throw(
      "filter.__proto__: unknown field '__proto__'",
    );
  });
});

describe('record validation: date-time fields', () => {
  it('accepts an ISO 8601 date or date-time string and refuses anything else, a list holding one included', () => {
    const fields = [field('due', 'DATETIME')];
    expect(validateRecord(fields, { due: '2026-11-23' }, 'items.0')).to.deep.equal({ due: '2026-11-23' });
    expect(validateRecord(fields, { due: '2026-11-23T10:00:00Z' }, 'items.0')).to.deep.equal({
      due: '2026-11-23T10:00:00Z',
    });
    for (const due of [['2026-11-23'], '2026-13-45', 'tomorrow', 20261123]) {
      expect(() => validateRecord(fields, { due }, 'items.0'), JSON.stringify(due)).to.throw(
        "items.0.due: 'due' must be an ISO 8601 date or date-time string",
      );
    }
  });
});
