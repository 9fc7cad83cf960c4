import { expect } from 'chai';
import { buildSchema, parse, validate } from 'graphql';
import { operationLimits } from '../../src/graphql/limits.js';

// A schema with a cycle, so that depth can grow without bound.
const schema = buildSchema(`type Node { id: ID, child: Node } type Query { root: Node }`);
const rule = operationLimits(10, 50);
const errors = (q: string) => validate(schema, parse(q), [rule]).map((e) => e.message);
const nest = (n: number) => `{ ${'root { '.repeat(1)}${'child { '.repeat(n - 2)}id${' }'.repeat(n - 1)} }`;

describe('GraphQL operation limits', () => {
  it('allows a query exactly at the depth limit and refuses one level more', () => {
    expect(errors(nest(10))).to.deep.equal([]);
    expect(errors(nest(11))).to.deep.equal(['Query is nested 11 levels deep; the limit is 10']);
  });

  it('counts depth through named and inline fragments', () => {
    const frags = Array.from({ length: 10 }, (_, i) => `fragment F${i} on Node { child { ${i < 9 ? `...F${i + 1}` : 'id'} } }`).join('\n');
    expect(errors(`{ root { ...F0 } }\n${frags}`)).to.have.length(1);
    expect(errors(`{ root { ... on Node { child { ... on Node { id } } } } }`)).to.deep.equal([]);
  });

  it('refuses more fields than the complexity budget, counting fragment expansions', () => {
    const wide = Array.from({ length: 50 }, (_, i) => `a${i}: id`).join(' ');
    expect(errors(`{ root { ${wide} } }`)).to.have.length(1); // 50 + root = 51
    const fine = Array.from({ length: 49 }, (_, i) => `a${i}: id`).join(' ');
    expect(errors(`{ root { ${fine} } }`)).to.deep.equal([]);
    const frag = `fragment W on Node { ${Array.from({ length: 20 }, (_, i) => `b${i}: id`).join(' ')} }`;
    expect(errors(`{ root { x: child { ...W } y: child { ...W } z: child { ...W } } }\n${frag}`)).to.have.length(1);
  });

  it('ignores introspection fields', () => {
    expect(errors(`{ __typename root { __typename id } }`)).to.deep.equal([]);
  });
});
