import { expect } from 'chai';
import { describeViolation, schemaRefusal, schemaViolation, SchemaRefused } from '../../src/domain/json-schema.js';

// Member-written JSON Schemas (MCP tool input and output schemas) and the values clients send
// against them: the first violation names its field; a schema the validator cannot use is refused
// with the reason; patterns run in the linear-time engine, case-sensitively as JSON Schema says.

describe('JSON Schema of tools', () => {
  const schema = {
    type: 'object',
    properties: {
      city: { type: 'string', minLength: 2 },
      address: { type: 'object', properties: { zip: { type: 'string', pattern: '^[0-9]{5}$' } }, required: ['zip'] },
    },
    required: ['city'],
    additionalProperties: false,
  };

  it('a conforming value has no violation', () => {
    expect(schemaViolation(schema, { city: 'Lyon', address: { zip: '69001' } })).to.equal(null);
  });

  it('names the missing field, the field that is not allowed, and the field of a wrong value (nested with dots)', () => {
    expect(describeViolation(schemaViolation(schema, {})!)).to.equal('city: is required');
    expect(describeViolation(schemaViolation(schema, { city: 'Lyon', mayor: 'x' })!)).to.equal('mayor: is not allowed');
    expect(describeViolation(schemaViolation(schema, { city: 7 })!)).to.equal('city: must be string');
    expect(schemaViolation(schema, { city: 'Lyon', address: {} })).to.deep.equal({
      field: '/address/zip',
      message: 'is required',
    });
    expect(describeViolation(schemaViolation(schema, { city: 'Lyon', address: { zip: '6900' } })!)).to.match(
      /^address\.zip: must match pattern/,
    );
    // The value itself, not a field: the message alone.
    expect(describeViolation(schemaViolation(schema, 'Lyon')!)).to.equal('must be object');
  });

  it('patterns are case-sensitive (JSON Schema), unlike guardrail phrases', () => {
    const s = { type: 'object', properties: { code: { type: 'string', pattern: '^[a-z]+$' } } };
    expect(schemaViolation(s, { code: 'abc' })).to.equal(null);
    expect(schemaViolation(s, { code: 'ABC' })).to.not.equal(null);
  });

  it('refuses a schema it cannot use, with the reason; one that is fine has none', () => {
    expect(schemaRefusal(schema)).to.equal(undefined);
    expect(schemaRefusal({ type: 'object', properties: { a: { type: 'text' } } })).to.match(/type/);
    expect(schemaRefusal({ type: 'object', $ref: 'https://example.test/other.json' })).to.match(
      /can't resolve reference/,
    );
    // A backreference cannot run in the linear-time engine: refused when saved, not at the first call.
    expect(schemaRefusal({ type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } })).to.match(
      /pattern cannot be used/,
    );
    expect(() => schemaViolation({ type: 'object', properties: { a: { type: 'text' } } }, {})).to.throw(SchemaRefused);
  });

  it('two schemas with the same $id do not clash (each is compiled on its own)', () => {
    const one = {
      $id: 'https://example.test/tool',
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
    };
    const two = {
      $id: 'https://example.test/tool',
      type: 'object',
      properties: { b: { type: 'string' } },
      required: ['b'],
    };
    expect(schemaViolation(one, { a: 1 })).to.equal(null);
    expect(schemaViolation(two, { b: 'x' })).to.equal(null);
    expect(describeViolation(schemaViolation(two, { a: 1 })!)).to.equal('b: is required');
  });

  it('a pattern cannot make validation backtrack: an exponential pattern checks a long value at once', () => {
    const s = { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } };
    // With backtracking this takes longer than the age of the universe; in RE2 it is linear.
    expect(schemaViolation(s, { a: `${'a'.repeat(5000)}!` })).to.not.equal(null);
  });
});
