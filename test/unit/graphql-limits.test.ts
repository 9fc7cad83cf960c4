import { expect } from 'chai';
import {
  buildSchema,
  getIntrospectionQuery,
  Kind,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { buildGraphqlSchema } from '../../src/graphql/schema.js';
import { MAX_ANSWER_BYTES, MAX_INTROSPECTION_DEPTH, operationLimits } from '../../src/graphql/limits.js';
import { type OperationLimits } from '../../src/graphql/operation-measure.js';

// A schema with a cycle, so that depth can grow without bound.
const schema = buildSchema(`type Node { id: ID, child: Node } type Query { root: Node }`);
const rule = operationLimits({ maxDepth: 10, maxComplexity: 50 });
const errors = (q: string) => validate(schema, parse(q), [rule]).map((e) => e.message);
const nest = (n: number) => `{ ${'root { '.repeat(1)}${'child { '.repeat(n - 2)}id${' }'.repeat(n - 1)} }`;
const tooMany = (n: number) => new RegExp(`^Query may return more than ${n} fields`);

/** `{ ...Gn }` where each fragment spreads the previous one twice: 2^n `__typename` once expanded. */
const fragmentBomb = (n: number) =>
  [
    `{ ...G${n} }`,
    ...Array.from({ length: n }, (_, i) => `fragment G${n - i} on Query { ...G${n - i - 1} ...G${n - i - 1} }`),
    'fragment G0 on Query { __typename }',
  ].join('\n');

/** Counts, per fragment, how often its selection set is read (once by the visitor, then by the rule). */
function countFragmentReads(doc: DocumentNode): Map<string, number> {
  const reads = new Map<string, number>();
  for (const def of doc.definitions) {
    if (def.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const { selectionSet } = def;
    const name = def.name.value;
    reads.set(name, 0);
    Object.defineProperty(def, 'selectionSet', {
      get: () => {
        reads.set(name, reads.get(name)! + 1);
        return selectionSet;
      },
    });
  }
  return reads;
}

describe('GraphQL operation limits', () => {
  it('allows a query exactly at the depth limit and refuses one level more', () => {
    expect(errors(nest(10))).to.deep.equal([]);
    expect(errors(nest(11))).to.deep.equal(['Query is nested 11 levels deep; the limit is 10']);
  });

  it('counts depth through named and inline fragments', () => {
    const frags = Array.from(
      { length: 10 },
      (_, i) => `fragment F${i} on Node { child { ${i < 9 ? `...F${i + 1}` : 'id'} } }`,
    ).join('\n');
    expect(errors(`{ root { ...F0 } }\n${frags}`)).to.have.length(1);
    expect(errors(`{ root { ... on Node { child { ... on Node { id } } } } }`)).to.deep.equal([]);
  });

  it('refuses more fields than the complexity budget, counting fragment expansions', () => {
    const wide = Array.from({ length: 50 }, (_, i) => `a${i}: id`).join(' ');
    expect(errors(`{ root { ${wide} } }`)[0]).to.match(tooMany(50)); // 50 + root = 51
    const fine = Array.from({ length: 49 }, (_, i) => `a${i}: id`).join(' ');
    expect(errors(`{ root { ${fine} } }`)).to.deep.equal([]);
    const frag = `fragment W on Node { ${Array.from({ length: 20 }, (_, i) => `b${i}: id`).join(' ')} }`;
    expect(errors(`{ root { x: child { ...W } y: child { ...W } z: child { ...W } } }\n${frag}`)).to.have.length(1);
  });

  it('counts __typename and introspection fields like any other field', () => {
    const small = operationLimits({ maxComplexity: 2 });
    const check = (q: string) => validate(schema, parse(q), [small]).map((e) => e.message);
    expect(check('{ root { id } }')).to.deep.equal([]);
    expect(check('{ root { __typename id } }')[0]).to.match(tooMany(2));
    expect(check('{ __typename root { __typename } }')[0]).to.match(tooMany(2));
    expect(check('{ __schema { types { name } } }')[0]).to.match(tooMany(2));
  });

  it('refuses the fragment bomb G0..G22 and G23, measuring each fragment once', () => {
    for (const n of [22, 23]) {
      const doc = parse(fragmentBomb(n));
      const reads = countFragmentReads(doc);
      const found = validate(schema, doc, [operationLimits()]).map((e) => e.message);
      expect(found).to.have.length(1);
      expect(found[0]).to.match(tooMany(1000));
      // Once by the visitor, at most once by the rule: never once per expansion.
      expect(Math.max(...reads.values()), JSON.stringify([...reads])).to.be.at.most(2);
    }
  });

  it('stops counting once the budget is spent: a fragment after that is never measured', () => {
    const over = Array.from({ length: 51 }, (_, i) => `a${i}: id`).join(' ');
    const doc = parse(
      `{ root { ...Over ...After } }\nfragment Over on Node { ${over} }\nfragment After on Node { id }`,
    );
    const reads = countFragmentReads(doc);
    expect(validate(schema, doc, [rule]).map((e) => e.message)[0]).to.match(tooMany(50));
    expect(reads.get('Over')).to.equal(2);
    expect(reads.get('After')).to.equal(1); // the visitor's read only
  });

  it('refuses a fragment chain too deep to measure with a validation error instead of throwing', () => {
    const chain = [
      `{ ...C5000 }`,
      ...Array.from({ length: 5000 }, (_, i) => `fragment C${5000 - i} on Query { ...C${4999 - i} }`),
      'fragment C0 on Query { root { id } }',
    ];
    expect(validate(schema, parse(chain.join('\n')), [operationLimits()]).map((e) => e.message)).to.deep.equal([
      'Query nests fields or fragments too deeply',
    ]);
  });

  describe('on the service schema', () => {
    let service: GraphQLSchema;
    before(async () => {
      service = await buildGraphqlSchema();
    });
    /** The rule's errors, with the default limits or the ones given. */
    const check = (q: string, limits: Partial<OperationLimits> = {}) =>
      validate(service, parse(q), [operationLimits(limits)]).map((e) => e.message);
    /** The query costs exactly `cost`: accepted at that budget, refused one below. */
    const expectCost = (q: string, cost: number) => {
      expect(check(q, { maxComplexity: cost }), q).to.deep.equal([]);
      expect(check(q, { maxComplexity: cost - 1 })[0], q).to.match(tooMany(cost - 1));
    };

    it('accepts the standard introspection query, which is exactly as deep as the introspection limit', () => {
      const all = {
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
        oneOf: true,
      };
      for (const q of [getIntrospectionQuery(), getIntrospectionQuery(all)]) {
        expect(validate(service, parse(q), [...specifiedRules, operationLimits()]).map((e) => e.message)).to.deep.equal(
          [],
        );
        expect(check(q, { maxIntrospectionDepth: MAX_INTROSPECTION_DEPTH - 1 })).to.deep.equal([
          `Introspection query is nested ${MAX_INTROSPECTION_DEPTH} levels deep; the limit is ${MAX_INTROSPECTION_DEPTH - 1}`,
        ]);
      }
    });

    it('refuses introspection nested 16 levels deep', () => {
      const ofTypes = (n: number) => `${'ofType { '.repeat(n)}name${' }'.repeat(n)}`;
      // __type > fields > type > 12 × ofType > name = 16 levels.
      expect(check(`{ __type(name: "Query") { fields { type { ${ofTypes(12)} } } } }`)).to.deep.equal([
        'Introspection query is nested 16 levels deep; the limit is 15',
      ]);
      expect(check(`{ __type(name: "Query") { fields { type { ${ofTypes(11)} } } } }`)).to.deep.equal([]);
    });

    it('counts a paged list once per item of its page: the literal size, the default when absent, the maximum for a variable', () => {
      // agent + activity + nodes + first × id
      expectCost('{ agent(id: "a") { activity(first: 7) { nodes { id } } } }', 3 + 7);
      expectCost('{ agent(id: "a") { activity { nodes { id } endCursor hasNextPage } } }', 5 + 50);
      expectCost('query($n: Int!) { agent(id: "a") { activity(first: $n) { nodes { id } } } }', 3 + 200);
      // workspace + usage + days × 3
      expectCost('{ workspace { usage(days: 12) { day credits runs } } }', 2 + 12 * 3);
      expectCost('{ workspace { usage { day } } }', 2 + 30);
    });

    it('refuses a large page of a few fields within the default budget', () => {
      const page = (n: number) =>
        `{ agent(id: "a") { activity(first: ${n}) { nodes { id kind surface status credits } } } }`;
      expect(check(page(200))[0]).to.match(tooMany(1000)); // 3 + 200 × 5 = 1003
      expect(check(page(199))).to.deep.equal([]);
      expect(check('{ workspace { usage(days: 366) { day credits runs } } }')[0]).to.match(tooMany(1000));
      expect(check('query($d: Int!) { workspace { usage(days: $d) { day credits runs } } }')[0]).to.match(
        tooMany(1000),
      );
    });

    describe('bytes of large values', () => {
      const KiB = 1024;
      const MiB = 1024 * KiB;
      const tooLarge = /^Query may return more than 16 MiB of bodies, headers, documents and scripts/;
      /** The query's large values come to exactly `bytes`: accepted at that budget, refused one byte below. */
      const expectBytes = (q: string, bytes: number) => {
        expect(check(q, { maxAnswerBytes: bytes }), q).to.deep.equal([]);
        expect(check(q, { maxAnswerBytes: bytes - 1 })[0], q).to.match(
          /^Query may return more than \d+ bytes of bodies/,
        );
      };
      const aliases = (n: number, field: string) => Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ');

      it('refuses four pages of 200 activity responses (50 MiB) before running; one page (12.5 MiB) passes', () => {
        expect(MAX_ANSWER_BYTES).to.equal(16 * MiB);
        expect(check(`{ agent(id: "a") { ${aliases(4, 'activity(first: 200) { nodes { response } }')} } }`))
          .to.have.length(1)
          .and.to.satisfy((m: string[]) => tooLarge.test(m[0]!));
        expect(
          check(`{ agent(id: "a") { ${aliases(2, 'activity(first: 200) { nodes { response } }')} } }`)[0],
        ).to.match(tooLarge);
        expect(check('{ agent(id: "a") { activity(first: 200) { nodes { response } } } }')).to.deep.equal([]);
        expectBytes('{ agent(id: "a") { activity(first: 200) { nodes { response } } } }', 200 * 64 * KiB);
      });

      it('passes console-like pages: 50 entries with bodies, 100 with headers and bodies', () => {
        expectBytes('{ agent(id: "a") { activity(first: 50) { nodes { id requestBody response } } } }', 50 * 128 * KiB);
        expectBytes(
          '{ agent(id: "a") { activity(first: 100) { nodes { id status requestHeaders requestBody response } } } }',
          100 * 144 * KiB,
        );
        expect(
          check(
            '{ agent(id: "a") { activity(first: 100) { nodes { id status requestHeaders requestBody response } } } }',
          ),
        ).to.deep.equal([]);
        expect(
          check('{ agent(id: "a") { activity(first: 114) { nodes { requestHeaders requestBody response } } } }')[0],
        ).to.match(tooLarge);
      });

      it('counts nothing for fields that hold no large value: four aliases of 200 delivery ids pass; 200 bodies pass, 400 do not', () => {
        expect(
          check(`{ ${aliases(4, 'webhookDeliveries(agentId: "a", first: 200) { nodes { id } }')} }`, {
            maxAnswerBytes: 0,
          }),
        ).to.deep.equal([]);
        expect(
          check('{ webhookDeliveries(agentId: "a", first: 200) { nodes { id status bodyBytes bodyDroppedAt } } }', {
            maxAnswerBytes: 0,
          }),
        ).to.deep.equal([]);
        expectBytes('{ webhookDeliveries(agentId: "a", first: 200) { nodes { body } } }', 200 * 64 * KiB);
        expectBytes('{ webhookDeliveries(agentId: "a", first: 10) { nodes { headers query body } } }', 10 * 96 * KiB);
        expect(
          check(`{ ${aliases(2, 'webhookDeliveries(agentId: "a", first: 200) { nodes { body } }')} }`)[0],
        ).to.match(tooLarge);
      });

      it('counts large values through fragments and variables, and a page set by a variable at its maximum', () => {
        const q = `query($n: Int!) { agent(id: "a") { ${aliases(2, 'activity(first: $n) { nodes { ...Bodies } }')} } } fragment Bodies on ActivityEntry { ... on ActivityEntry { response } }`;
        expectBytes(q, 2 * 200 * 64 * KiB);
        expect(check(q)[0]).to.match(tooLarge);
      });

      it("counts what members write within its bound, and a document's content as 1 MiB", () => {
        expectBytes('{ agent(id: "a") { documents { name content } } }', 10 * MiB);
        expect(check('{ agents { documents { content } } }')[0]).to.match(tooLarge);
        expectBytes(
          '{ agent(id: "a") { instructions httpEndpoints { handler { prompt script } inputSchema outputSchema } } }',
          100_000 + 10 * (400_000 + 128 * KiB),
        );
        expectBytes('{ agents { guardrails { blockedInputPatterns redactOutputPatterns } } }', 10 * 100_000);
      });

      it('stops counting once the byte budget is spent, like the field count', () => {
        const doc = parse(
          `{ webhookDeliveries(agentId: "a", first: 200) { nodes { ...Big ...After } } }\nfragment Big on WebhookDelivery { body }\nfragment After on WebhookDelivery { id }`,
        );
        const reads = countFragmentReads(doc);
        expect(validate(service, doc, [operationLimits({ maxAnswerBytes: 1000 })]).map((e) => e.message)[0]).to.match(
          /more than 1000 bytes/,
        );
        expect(reads.get('After')).to.equal(1); // the visitor's read only
      });
    });

    it("counts an agent's messages by pageSize (default 50, a variable at 200), under many agents too", () => {
      // agent + messages + nodes + pageSize × id, and totalCount
      expectCost('{ agent(id: "a") { messages(pageSize: 7) { nodes { id } totalCount } } }', 4 + 7);
      expectCost('{ agent(id: "a") { messages { nodes { id } } } }', 3 + 50);
      expectCost('query($n: Int!) { agent(id: "a") { messages(page: 3, pageSize: $n) { nodes { id } } } }', 3 + 200);
      // Ten agents' pages of 200 with four fields each are far past the budget; a page of 20 of one field is not.
      expect(check('query($n: Int!) { agents { messages(pageSize: $n) { nodes { id from to body } } } }')[0]).to.match(
        tooMany(1000),
      );
      expectCost('{ agents { messages(pageSize: 20) { nodes { id } } } }', 1 + 10 * (2 + 20));
      // A body counts 64 KiB: the largest page of bodies passes the byte budget, two of them do not.
      expect(check('{ agent(id: "a") { messages(pageSize: 200) { nodes { body } } } }')).to.deep.equal([]);
      expect(
        check(
          '{ agent(id: "a") { a: messages(pageSize: 200) { nodes { body } } b: messages(pageSize: 200) { nodes { body } } } }',
        )[0],
      ).to.match(/more than 16 MiB/);
    });

    it('counts an unpaged list of objects as 10 items and a list of scalars as one value', () => {
      expectCost('{ agents { id } }', 1 + 10);
      expectCost('{ agents { id httpEndpoints { id path } } }', 1 + 10 * (1 + 1 + 10 * 2));
      expectCost('{ agents { cors { customOrigins } } }', 1 + 10 * 2);
      expectCost('{ __schema { types { fields { name } } } }', 4);
    });
  });
});
