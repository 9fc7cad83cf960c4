import { expect } from 'chai';
import { createAgent, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { startOpenAiServer, type FakeOpenAi, type FakeToolCall } from '../helpers/openai-server.js';
import { configureFakeModel } from '../helpers/runtime.js';
import {
  addHttpEndpoint,
  call,
  createAgentKey,
  createDocument,
  documentPath,
  exposeDocument,
  httpApiPath,
} from '../helpers/surface-calls.js';

// The document tools a prompt run is given (DESIGN §5): with the Documents capability
// `list_documents`, `read_document`, `query_records`, `insert_records`, `update_records`,
// `delete_records`; with Endpoint Management `expose_document` / `unexpose_document`. They work on
// the agent's own documents and on nothing else. Driven as the product drives them: an HTTP API
// prompt endpoint whose model (the local OpenAI-compatible test server) issues the tool calls; the
// outcome is checked in what the tools answered the model and through the Document API.

const FIELDS = [
  { name: 'email', type: 'STRING', required: true },
  { name: 'score', type: 'NUMBER' },
];

describe('document tools of a prompt run: own documents only', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;
  let other: string, otherKey: string, otherDb: string, otherText: string;

  before(async () => {
    fake = await startOpenAiServer();
    ws = await newWorkspace();
    await configureFakeModel(ws.adminToken, fake);
    other = await createAgent(ws.adminToken, { name: 'Neighbour' });
    otherKey = await createAgentKey(ws.adminToken, other);
    otherText = await createDocument(ws.adminToken, other, {
      name: 'Neighbour plans',
      kind: 'TEXT',
      content: 'launch codes 0000',
    });
    otherDb = await createDocument(ws.adminToken, other, { name: 'Neighbour leads', kind: 'DATABASE', fields: FIELDS });
    await exposeDocument(ws.adminToken, other, otherText);
    await exposeDocument(ws.adminToken, other, otherDb);
    const seeded = await call('POST', documentPath(other, otherDb, 'insert'), {
      key: otherKey,
      json: { items: [{ email: 'n@neighbour.test', score: 1 }] },
    });
    expect(seeded.status, seeded.text).to.equal(200);
  });
  after(async () => fake.close());
  beforeEach(() => fake.reset());

  /** An agent on the fake model with the given capabilities, a key and a prompt endpoint `assist`. */
  async function agentWith(capabilities: {
    documents?: boolean;
    endpointManagement?: boolean;
  }): Promise<{ id: string; key: string }> {
    const id = await createAgent(ws.adminToken, { name: 'Assistant', defaultModel: 'test-model' });
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!, $c: CapabilitiesInput!) { setCapabilities(agentId: $a, input: $c) { id } }',
      { a: id, c: capabilities },
    );
    await addHttpEndpoint(ws.adminToken, id, { path: 'assist', handler: { prompt: 'Use your tools.' } });
    return { id, key: await createAgentKey(ws.adminToken, id) };
  }

  /**
   * Runs the prompt endpoint while the model makes `steps` (one list of tool calls per model turn)
   * and then answers; returns the tool results the model received, in call order.
   */
  async function runTools(agent: { id: string; key: string }, steps: FakeToolCall[][]): Promise<any[]> {
    fake.enqueue(...steps.map((toolCalls) => ({ toolCalls })), { text: 'done' });
    const r = await call('POST', httpApiPath(agent.id, 'assist'), {
      key: agent.key,
      json: { task: 'work on documents' },
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.output).to.equal('done');
    expect(fake.pending()).to.equal(0);
    const last = fake.requests.at(-1)!.body.messages!;
    return last.filter((m) => m.role === 'tool').map((m) => JSON.parse(String(m.content)));
  }

  /** The records of a database document as its agent's Document API shows them: [email, score], sorted. */
  async function records(agentId: string, key: string, documentId: string): Promise<unknown[][]> {
    const r = await call('GET', `${documentPath(agentId, documentId)}?limit=1000`, { key });
    expect(r.status, r.text).to.equal(200);
    return (r.json.data.records as { email: string; score?: number }[])
      .map((x) => [x.email, x.score ?? null])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  }

  async function ownDocuments(agentId: string) {
    const guide = await createDocument(ws.adminToken, agentId, {
      name: 'Guide',
      description: 'How we work',
      kind: 'TEXT',
      content: 'Be kind to leads.',
    });
    const leads = await createDocument(ws.adminToken, agentId, { name: 'Leads', kind: 'DATABASE', fields: FIELDS });
    await exposeDocument(ws.adminToken, agentId, leads);
    return { guide, leads };
  }

  async function seedLeads(agent: { id: string; key: string }, leads: string): Promise<void> {
    const r = await call('POST', documentPath(agent.id, leads, 'insert'), {
      key: agent.key,
      json: {
        items: [
          { email: 'a@example.com', score: 3 },
          { email: 'b@example.com', score: 9 },
          { email: 'c@example.com', score: 9 },
        ],
      },
    });
    expect(r.status, r.text).to.equal(200);
  }

  it("list_documents lists the agent's own documents and none of another agent's", async () => {
    const agent = await agentWith({ documents: true });
    const { guide, leads } = await ownDocuments(agent.id);
    const [listed] = await runTools(agent, [[{ name: 'list_documents', arguments: {} }]]);
    expect(listed).to.be.an('array');
    expect(listed.map((d: { id: string; name: string; kind: string }) => [d.name, d.kind, d.id]).sort()).to.deep.equal([
      ['Guide', 'TEXT', guide],
      ['Leads', 'DATABASE', leads],
    ]);
    expect(JSON.stringify(listed)).to.not.contain('Neighbour');
  });

  it("read_document returns an own document's content, and for a database its fields and records", async () => {
    const agent = await agentWith({ documents: true });
    const { guide, leads } = await ownDocuments(agent.id);
    await seedLeads(agent, leads);
    const [text, db] = await runTools(agent, [
      [
        { name: 'read_document', arguments: { documentId: guide } },
        { name: 'read_document', arguments: { documentId: leads, limit: 2 } },
      ],
    ]);
    expect(text).to.deep.include({
      id: guide,
      name: 'Guide',
      description: 'How we work',
      kind: 'TEXT',
      content: 'Be kind to leads.',
    });
    expect(db.kind).to.equal('DATABASE');
    expect(db.data.totalCount).to.equal(3);
    expect(db.data.records).to.have.length(2);
    expect(db.data.fields.map((f: { name: string }) => f.name)).to.deep.equal(['email', 'score']);
  });

  it("update_records and delete_records change the matching records of the agent's own database", async () => {
    const agent = await agentWith({ documents: true });
    const { leads } = await ownDocuments(agent.id);
    await seedLeads(agent, leads);
    const [updated, deleted] = await runTools(agent, [
      [{ name: 'update_records', arguments: { documentId: leads, filter: { score: 9 }, set: { score: 10 } } }],
      [{ name: 'delete_records', arguments: { documentId: leads, filter: { email: 'a@example.com' } } }],
    ]);
    expect(updated).to.deep.equal({ updated: 2 });
    expect(deleted).to.deep.equal({ deleted: 1 });
    expect(await records(agent.id, agent.key, leads)).to.deep.equal([
      ['b@example.com', 10],
      ['c@example.com', 10],
    ]);
  });

  it("every document tool naming another agent's document answers NOT_FOUND and leaves it unread and unchanged", async () => {
    const agent = await agentWith({ documents: true });
    const results = await runTools(agent, [
      [
        { name: 'read_document', arguments: { documentId: otherText } },
        { name: 'read_document', arguments: { documentId: otherDb } },
        { name: 'query_records', arguments: { documentId: otherDb, filter: {} } },
        { name: 'insert_records', arguments: { documentId: otherDb, items: [{ email: 'x@evil.test' }] } },
        { name: 'update_records', arguments: { documentId: otherDb, filter: { score: 1 }, set: { score: 99 } } },
        { name: 'delete_records', arguments: { documentId: otherDb, filter: {}, all: true } },
      ],
    ]);
    expect(results).to.have.length(6);
    const ids = [otherText, otherDb, otherDb, otherDb, otherDb, otherDb];
    results.forEach((res, i) =>
      expect(res, `call ${i}`).to.deep.equal({ error: `Document '${ids[i]}' not found`, code: 'NOT_FOUND' }),
    );
    const told = JSON.stringify(fake.requests.at(-1)!.body.messages);
    expect(told).to.not.contain('launch codes').and.not.contain('n@neighbour.test');

    expect(await records(other, otherKey, otherDb)).to.deep.equal([['n@neighbour.test', 1]]);
    const text = await call('GET', documentPath(other, otherText), { key: otherKey });
    expect(text.json.content).to.equal('launch codes 0000');
  });

  it("expose_document / unexpose_document work on the agent's own documents and refuse another agent's", async () => {
    const agent = await agentWith({ endpointManagement: true });
    const guide = await createDocument(ws.adminToken, agent.id, {
      name: 'Guide',
      kind: 'TEXT',
      content: 'Be kind to leads.',
    });
    expect((await call('GET', documentPath(agent.id, guide), { key: agent.key })).status).to.equal(404);

    const [exposedOwn, exposedForeign, unexposedForeign] = await runTools(agent, [
      [
        { name: 'expose_document', arguments: { documentId: guide, read: true, write: false } },
        // A model may also name the other agent: the tools are bound to the running agent.
        { name: 'expose_document', arguments: { agentId: other, documentId: otherText, read: true, write: true } },
        { name: 'unexpose_document', arguments: { agentId: other, documentId: otherDb } },
      ],
    ]);
    expect(exposedOwn).to.deep.equal({ documentId: guide, read: true, write: false, mcp: false });
    expect(exposedForeign.code).to.equal('NOT_FOUND');
    expect(unexposedForeign.code).to.equal('NOT_FOUND');

    // Its own document is now on its Document API; the other agent's is not reachable through it.
    const own = await call('GET', documentPath(agent.id, guide), { key: agent.key });
    expect(own.status, own.text).to.equal(200);
    expect(own.json.content).to.equal('Be kind to leads.');
    const foreign = await call('GET', documentPath(agent.id, otherText), { key: agent.key });
    expect(foreign.status, foreign.text).to.equal(404);
    expect(foreign.text).to.not.contain('launch codes');
    const exposures = await gqlOk(
      ws.adminToken,
      'query($a: ID!) { agent(id: $a) { documentExposures { documentId } } }',
      { a: agent.id },
    );
    expect(exposures.agent.documentExposures).to.deep.equal([{ documentId: guide }]);

    // The other agent's exposure is untouched.
    expect((await call('GET', documentPath(other, otherDb), { key: otherKey })).status).to.equal(200);

    const [unexposedOwn] = await runTools(agent, [[{ name: 'unexpose_document', arguments: { documentId: guide } }]]);
    expect(unexposedOwn).to.equal(true);
    expect((await call('GET', documentPath(agent.id, guide), { key: agent.key })).status).to.equal(404);
  });
});
