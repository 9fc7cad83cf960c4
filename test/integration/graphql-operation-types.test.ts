import { expect } from 'chai';
import { errorCode, gql, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// The schema has queries and mutations only. A subscription is the client's mistake: graphql 16
// lets it through validation and fails it at execution with an error that carries no code, which
// the GraphQL error mapper answered as INTERNAL_SERVER_ERROR (and logged as a server failure).
// Found by the fault suite's fuzzing (test/faults/fuzz/graphql.fuzz.test.ts).

describe('GraphQL: operation types the schema does not have', () => {
  let ws: TestWorkspace;
  before(async () => {
    ws = await newWorkspace();
  });

  for (const query of ['subscription { viewer { id } }', 'subscription S { __typename }', 'subscription { x }']) {
    it(`refuses \`${query}\` as a validation error (400), not an internal error`, async () => {
      const r = await gql(ws.adminToken, query);
      expect(r.status).to.equal(400);
      expect(errorCode(r)).to.equal('GRAPHQL_VALIDATION_FAILED');
      expect(r.errors!.map((e) => e.message)).to.include('The subscription operation is not supported by the schema');
      expect(r.data).to.equal(undefined);
    });
  }

  it('still runs a document whose other operation is chosen by name', async () => {
    const r = await gql(ws.adminToken, 'query Q { viewer { id } }');
    expect(r.status).to.equal(200);
    expect(r.errors).to.equal(undefined);
  });
});
