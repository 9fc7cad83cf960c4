import { expect } from 'chai';
import {
  createAgent,
  errorCode,
  gql,
  gqlOk,
  h,
  newWorkspace,
  type GqlResult,
  type TestWorkspace,
} from '../helpers/harness.js';

// docs/decisions.md §10 and STYLE "Errors": an unexpected (non-domain) error inside a resolver
// answers `extensions.code = INTERNAL_SERVER_ERROR` with a generic message — never the cause's
// message, a source path, SQL or a stack trace. Provoked by a store that throws a plain Error, the
// way a dropped connection or a bug in a repository would.

const CAUSE = 'relation "credit_usage" is corrupt at /srv/internal/store/usage.repo.ts:42 (password=hunter2)';

function expectMasked(r: GqlResult, field: string): void {
  expect(r.errors, JSON.stringify(r)).to.have.length(1);
  const e = r.errors![0]!;
  expect(errorCode(r)).to.equal('INTERNAL_SERVER_ERROR');
  expect(e.message).to.equal('Internal server error');
  expect(e.extensions).to.deep.equal({ code: 'INTERNAL_SERVER_ERROR' });
  expect(e.path?.[0]).to.equal(field);
  const text = JSON.stringify(r);
  for (const leak of ['corrupt', 'credit_usage', 'hunter2', '/srv/internal', 'usage.repo', 'stacktrace'])
    expect(text, leak).to.not.contain(leak);
  expect(text).to.not.match(/\bat \S+ \(|\.ts:\d+/);
}

describe('GraphQL: unexpected errors are masked', function () {
  this.timeout(30_000);
  let ws: TestWorkspace;
  let agentId: string;

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken, { name: 'Masked' });
  });

  it('a query whose store read throws a plain Error answers INTERNAL_SERVER_ERROR with a generic message and nothing of the cause', async () => {
    const repo = h().service.store.repos.usage;
    const original = repo.listByAgent;
    repo.listByAgent = async () => {
      throw new Error(CAUSE);
    };
    try {
      expectMasked(
        await gql(ws.adminToken, 'query($a: ID!) { agent(id: $a) { name usage { day credits } } }', { a: agentId }),
        'agent',
      );
    } finally {
      repo.listByAgent = original;
    }
    // The same query answers once the store works again.
    const ok = await gqlOk(ws.adminToken, 'query($a: ID!) { agent(id: $a) { name usage { day credits } } }', {
      a: agentId,
    });
    expect(ok.agent).to.deep.equal({ name: 'Masked', usage: [] });
  });

  it('a mutation whose store transaction throws a plain Error is masked the same way, while a domain error keeps its code and message', async () => {
    const store = h().service.store;
    const original = store.transaction;
    store.transaction = async () => {
      throw new Error(CAUSE);
    };
    try {
      expectMasked(await gql(ws.adminToken, 'mutation { createAgent(input: {name: "never"}) { id } }'), 'createAgent');
    } finally {
      store.transaction = original;
    }
    const agents = await gqlOk(ws.adminToken, '{ agents { name } }');
    expect(agents.agents.map((a: { name: string }) => a.name)).to.not.include('never');

    const domain = await gql(ws.adminToken, 'query { agent(id: "agt_does_not_exist") { id } }');
    expect(errorCode(domain)).to.equal('NOT_FOUND');
    expect(domain.errors![0]!.message).to.contain('agt_does_not_exist');
  });
});
