import { expect } from 'chai';
import type { Principal } from '../../src/domain/principal.js';
import { createAgent, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// The `documentRecords` query (the console's records browser): the Document API's own filter, sort
// and cursor code behind GraphQL, so the semantics are the same; hostile arguments are refused with
// an error naming the argument (never a 500); members read the records of the agents they can see,
// exposed or not; the operation limits weigh each record's data.

const FIELDS = [
  { name: 'title', type: 'STRING', required: true },
  { name: 'score', type: 'NUMBER' },
  { name: 'done', type: 'BOOLEAN' },
  { name: 'meta', type: 'JSON' },
];

const RECORDS = `query($a: ID!, $d: ID!, $f: JSONObject, $s: [RecordSortInput!], $n: Int, $after: String) {
  documentRecords(agentId: $a, documentId: $d, filter: $f, sort: $s, first: $n, after: $after) { nodes { id data } totalCount endCursor hasNextPage }
}`;

interface Page {
  nodes: { id: string; data: Record<string, unknown> }[];
  totalCount: number;
  endCursor: string | null;
  hasNextPage: boolean;
}

describe('GraphQL documentRecords (the console records browser)', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let agentId: string;
  let privateAgentId: string;
  let docId: string;
  let textDocId: string;
  let privateDocId: string;

  const createDoc = async (agent: string, input: Record<string, unknown>) =>
    (
      await gqlOk(
        ws.adminToken,
        'mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }',
        { a: agent, i: input },
      )
    ).createDocument.id as string;
  const page = async (token: string, vars: Record<string, unknown>, agent = agentId, doc = docId): Promise<Page> =>
    (await gqlOk(token, RECORDS, { a: agent, d: doc, ...vars })).documentRecords as Page;
  const refused = async (vars: Record<string, unknown>, token = ws.adminToken, agent = agentId, doc = docId) => {
    const r = await gql(token, RECORDS, { a: agent, d: doc, ...vars });
    expect(r.status, JSON.stringify(r.errors)).to.be.oneOf([200, 400]);
    expect(r.errors, 'an error').to.have.length(1);
    const e = r.errors![0]!;
    expect(e.extensions?.code).to.not.equal('INTERNAL_SERVER_ERROR');
    return e;
  };

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken, { name: 'Records' });
    docId = await createDoc(agentId, { name: 'Tasks', kind: 'DATABASE', fields: FIELDS });
    textDocId = await createDoc(agentId, { name: 'Notes', kind: 'TEXT', content: 'hello' });
    const admin: Principal = { kind: 'member', memberId: ws.adminId, workspaceId: ws.workspaceId, role: 'ADMIN' };
    // Not exposed on the Document API: members read records without an exposure.
    await h().service.services.records.insert(
      admin,
      agentId,
      docId,
      'agent',
      Array.from({ length: 25 }, (_, i) => ({
        title: `task ${String(i).padStart(2, '0')}`,
        score: i % 5,
        done: i % 2 === 0,
        meta: { n: i },
      })),
    );
    privateAgentId = await createAgent(ws.adminToken, { name: 'Private', visibility: 'PRIVATE' });
    privateDocId = await createDoc(privateAgentId, { name: 'Secret list', kind: 'DATABASE', fields: FIELDS });
    await h().service.services.records.insert(admin, privateAgentId, privateDocId, 'agent', [{ title: 'hidden' }]);
  });

  it('returns records in insertion order with their data, the total and a cursor', async () => {
    const p = await page(ws.adminToken, { n: 10 });
    expect(p.totalCount).to.equal(25);
    expect(p.hasNextPage).to.equal(true);
    expect(p.nodes.map((r) => r.data.title)).to.deep.equal(
      Array.from({ length: 10 }, (_, i) => `task ${String(i).padStart(2, '0')}`),
    );
    expect(p.nodes[3]).to.deep.include({ data: { title: 'task 03', score: 3, done: false, meta: { n: 3 } } });
    expect(p.nodes[0]!.id).to.match(/^rec_/);
    expect(p.nodes[0]!.data).to.not.have.property('id');
  });

  it("filters with the Document API's operators and sorts by several keys", async () => {
    const p = await page(ws.adminToken, {
      f: { score: { gte: 3 }, done: true },
      s: [{ field: 'score', direction: 'DESC' }, { field: 'title' }],
      n: 50,
    });
    // score 3 or 4 and even index: 4, 14, 24 (score 4) then 8, 18 (score 3)
    expect(p.nodes.map((r) => r.data.title)).to.deep.equal(['task 04', 'task 14', 'task 24', 'task 08', 'task 18']);
    expect(p.totalCount).to.equal(5);
    expect(p.hasNextPage).to.equal(false);
    expect(p.endCursor).to.equal(null);
    const c = await page(ws.adminToken, { f: { title: { contains: 'TASK 1' }, meta: { eq: { n: 12 } } } });
    expect(c.nodes.map((r) => r.data.title)).to.deep.equal(['task 12']);
  });

  it('pages with after: every record once, in order, under the same filter and sort', async () => {
    const s = [{ field: 'score' }];
    const f = { done: false };
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const p: Page = await page(ws.adminToken, { f, s, n: 4, after });
      expect(p.totalCount).to.equal(12);
      seen.push(...p.nodes.map((r) => r.data.title as string));
      if (!p.hasNextPage) break;
      after = p.endCursor;
    }
    expect(seen).to.have.length(12);
    expect(new Set(seen).size).to.equal(12);
    const all = await page(ws.adminToken, { f, s, n: 50 });
    expect(seen).to.deep.equal(all.nodes.map((r) => r.data.title));
  });

  it('refuses a bad filter naming the filter path, never with a 500', async () => {
    expect((await refused({ f: { nope: 1 } })).extensions).to.include({ code: 'BAD_USER_INPUT', field: 'filter.nope' });
    expect((await refused({ f: { score: { $gt: 1 } } })).message).to.include("write 'gt' without '$'");
    expect((await refused({ f: { score: 'high' } })).extensions).to.include({ field: 'filter.score' });
    expect((await refused({ f: { done: { gt: true } } })).extensions).to.include({ field: 'filter.done.gt' });
    expect((await refused({ f: { title: null } })).extensions).to.include({ field: 'filter.title' });
    expect((await refused({ f: { title: { contains: 'x'.repeat(1001) } } })).extensions).to.include({
      field: 'filter.title.contains',
    });
    // Not an object: the JSONObject scalar refuses it before any resolver.
    const notObject = await refused({ f: ['title'] });
    expect(notObject.extensions?.code).to.equal('BAD_USER_INPUT');
    expect(notObject.message).to.include('$f');
    expect(
      (await refused({ f: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, 1])) })).extensions,
    ).to.include({ field: 'filter' });
  });

  it('refuses a bad sort, page size or cursor naming the argument', async () => {
    expect((await refused({ s: [{ field: 'meta' }] })).extensions).to.include({ field: 'sort.0.field' });
    expect((await refused({ s: [{ field: 'missing' }] })).extensions).to.include({ field: 'sort.0.field' });
    expect((await refused({ s: [] })).extensions).to.include({ field: 'sort' });
    expect(
      (await refused({ s: [{ field: 'title' }, { field: 'score' }, { field: 'done' }, { field: 'title' }] }))
        .extensions,
    ).to.include({ field: 'sort' });
    const badDirection = await refused({ s: [{ field: 'title', direction: 'sideways' }] });
    expect(badDirection.message).to.include('ASC, DESC');
    for (const n of [0, -1, 201])
      expect((await refused({ n })).extensions, String(n)).to.include({ code: 'BAD_USER_INPUT', field: 'first' });
    for (const after of ['garbage', '', 'x'.repeat(40_000), Buffer.from('{"q":1}').toString('base64url')]) {
      const e = await refused({ after });
      expect(e.extensions, after.slice(0, 20)).to.include({ code: 'BAD_USER_INPUT', field: 'after' });
      expect(e.message).to.match(/^after: /);
    }
    // A cursor of another query (another filter) is refused rather than skipping records.
    const first = await page(ws.adminToken, { n: 2 });
    const other = await refused({ f: { done: true }, after: first.endCursor });
    expect(other.extensions).to.include({ field: 'after' });
    expect(other.message).to.include('another filter or sort');
  });

  it('refuses a TEXT document, an unknown one and a document of another agent', async () => {
    const text = await refused({}, ws.adminToken, agentId, textDocId);
    expect(text.extensions).to.include({ code: 'BAD_USER_INPUT', field: 'documentId' });
    expect(text.message).to.include('TEXT document');
    expect((await refused({}, ws.adminToken, agentId, 'doc_missing')).extensions?.code).to.equal('NOT_FOUND');
    expect((await refused({}, ws.adminToken, agentId, privateDocId)).extensions?.code).to.equal('NOT_FOUND');
    expect((await refused({}, ws.adminToken, 'agt_missing', docId)).extensions?.code).to.equal('NOT_FOUND');
  });

  it('lets a member read the records of an agent they can see, and not of a private agent of another member', async () => {
    const { token } = await ws.addMember('MEMBER');
    const p = await page(token, { n: 1 });
    expect(p.totalCount).to.equal(25);
    const e = await refused({}, token, privateAgentId, privateDocId);
    expect(e.extensions?.code).to.equal('NOT_FOUND');
    expect(e.message).to.not.include('hidden');
    // The admin sees the private agent's records.
    expect((await page(ws.adminToken, {}, privateAgentId, privateDocId)).nodes.map((r) => r.data.title)).to.deep.equal([
      'hidden',
    ]);
    // API keys are no GraphQL principals at all.
    const r = await gql('ak_not_a_member_token', RECORDS, { a: agentId, d: docId });
    expect(r.status).to.equal(401);
  });

  it('weighs record data in the operation limits: one page of 200 passes, four are refused before running', async () => {
    const one = await gql(
      ws.adminToken,
      `{ documentRecords(agentId: "${agentId}", documentId: "${docId}", first: 200) { nodes { data } } }`,
    );
    expect(one.errors).to.equal(undefined);
    const aliases = [1, 2, 3, 4]
      .map(
        (i) => `p${i}: documentRecords(agentId: "${agentId}", documentId: "${docId}", first: 200) { nodes { data } }`,
      )
      .join(' ');
    const four = await gql(ws.adminToken, `{ ${aliases} }`);
    expect(four.status).to.equal(400);
    expect(four.errors![0]!.message).to.match(/may return more than 16 MiB/);
    // Without the data field the same four pages are within the limits.
    const ids = [1, 2, 3, 4]
      .map((i) => `p${i}: documentRecords(agentId: "${agentId}", documentId: "${docId}", first: 200) { nodes { id } }`)
      .join(' ');
    expect((await gql(ws.adminToken, `{ ${ids} }`)).errors).to.equal(undefined);
  });
});
