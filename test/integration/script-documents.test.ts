import { expect } from 'chai';
import { createAgent, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import {
  addHttpEndpoint,
  call,
  createAgentKey,
  createDocument,
  documentPath,
  exposeDocument,
  httpApiPath,
  type Reply,
} from '../helpers/surface-calls.js';

// DESIGN §5: a script handler reaches the agent's own documents through `documents.query/insert/
// update/delete` — real records, the same ones the Document API serves — and nothing of any other
// agent. Driven through HTTP API script endpoints; the outcome is checked through the Document API.
// The agent's own code reaches its documents whether or not the Documents capability (the model's
// tools) is on (docs/runtime.md), so the agent here has it off.

const FIELDS = [
  { name: 'sku', type: 'STRING', required: true },
  { name: 'qty', type: 'NUMBER' },
  { name: 'status', type: 'STRING' },
];

const SCRIPTS: Record<string, string> = {
  'records/add': 'return await documents.insert(input.documentId, input.items);',
  'records/find': 'return await documents.query(input.documentId, input.filter, input.page);',
  'records/set': 'return await documents.update(input.documentId, input.filter, input.set);',
  'records/remove': 'return await documents.delete(input.documentId, input.filter, input.options);',
  // The error a script sees when the host refuses, caught by the script itself.
  'records/probe':
    'try { await documents.query(input.documentId, {}); return "read"; } catch (e) { return { name: e.name, message: e.message }; }',
};

describe('script handlers: documents.* on real records', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let agent: string, key: string;
  let other: string, otherKey: string, otherDoc: string;

  const run = (path: string, body: unknown): Promise<Reply> =>
    call('POST', httpApiPath(agent, path), { key, json: body });

  /** The records of a document as its agent's Document API shows them: [sku, qty, status] sorted by sku. */
  async function rows(agentId: string, agentKey: string, documentId: string): Promise<unknown[][]> {
    const r = await call('GET', `${documentPath(agentId, documentId)}?limit=1000`, { key: agentKey });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.data.totalCount).to.equal(r.json.data.records.length);
    return (r.json.data.records as Record<string, unknown>[])
      .map((x) => [x.sku, x.qty ?? null, x.status ?? null])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  }

  /** A fresh database document of the agent, exposed read+write, holding `seed`. */
  async function ordersDoc(seed: Record<string, unknown>[] = []): Promise<string> {
    const id = await createDocument(ws.adminToken, agent, { name: 'Orders', kind: 'DATABASE', fields: FIELDS });
    await exposeDocument(ws.adminToken, agent, id);
    if (seed.length) {
      const r = await call('POST', documentPath(agent, id, 'insert'), { key, json: { items: seed } });
      expect(r.status, r.text).to.equal(200);
    }
    return id;
  }

  const SEED = [
    { sku: 'A1', qty: 1, status: 'open' },
    { sku: 'B2', qty: 5, status: 'open' },
    { sku: 'C3', qty: 9, status: 'closed' },
  ];

  before(async () => {
    ws = await newWorkspace();
    agent = await createAgent(ws.adminToken, { name: 'Shop' });
    key = await createAgentKey(ws.adminToken, agent);
    const caps = await gqlOk(ws.adminToken, 'query($a: ID!) { agent(id: $a) { capabilities { documents } } }', {
      a: agent,
    });
    expect(caps.agent.capabilities.documents).to.equal(false);
    for (const [path, script] of Object.entries(SCRIPTS))
      await addHttpEndpoint(ws.adminToken, agent, { path, handler: { script } });

    other = await createAgent(ws.adminToken, { name: 'Neighbour' });
    otherKey = await createAgentKey(ws.adminToken, other);
    otherDoc = await createDocument(ws.adminToken, other, {
      name: 'Neighbour orders',
      kind: 'DATABASE',
      fields: FIELDS,
    });
    await exposeDocument(ws.adminToken, other, otherDoc);
    const seeded = await call('POST', documentPath(other, otherDoc, 'insert'), {
      key: otherKey,
      json: { items: [{ sku: 'N1', qty: 4, status: 'open' }] },
    });
    expect(seeded.status, seeded.text).to.equal(200);
  });

  it("documents.insert stores the records in the agent's database, each with an id, as the Document API then shows", async () => {
    const doc = await ordersDoc();
    const r = await run('records/add', {
      documentId: doc,
      items: [
        { sku: 'A1', qty: 2 },
        { sku: 'B2', qty: 3, status: 'open' },
      ],
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.output.inserted).to.equal(2);
    expect(r.json.output.records).to.have.length(2);
    for (const rec of r.json.output.records) expect(rec.id).to.be.a('string').and.not.equal('');
    expect(await rows(agent, key, doc)).to.deep.equal([
      ['A1', 2, null],
      ['B2', 3, 'open'],
    ]);
  });

  it("documents.query returns the matching records of the agent's database with the total count, paged", async () => {
    const doc = await ordersDoc(SEED);
    const open = await run('records/find', { documentId: doc, filter: { status: 'open' } });
    expect(open.status, open.text).to.equal(200);
    expect(open.json.output.totalCount).to.equal(2);
    expect(open.json.output.records.map((x: { sku: string }) => x.sku).sort()).to.deep.equal(['A1', 'B2']);

    const anyOf = await run('records/find', { documentId: doc, filter: { sku: ['A1', 'C3'] }, page: { limit: 1 } });
    expect(anyOf.status, anyOf.text).to.equal(200);
    expect(anyOf.json.output.totalCount).to.equal(2);
    expect(anyOf.json.output.records).to.have.length(1);
    expect(['A1', 'C3']).to.include(anyOf.json.output.records[0].sku);
  });

  it('documents.query takes operators, a sort and a cursor, as the Document API does', async () => {
    const doc = await ordersDoc([...SEED, { sku: 'D4', qty: 12, status: 'open' }]);
    const page = { sort: { field: 'qty', direction: 'desc' }, limit: 2 };
    const first = await run('records/find', {
      documentId: doc,
      filter: { qty: { gt: 1 }, status: { ne: 'closed' } },
      page,
    });
    expect(first.status, first.text).to.equal(200);
    expect([first.json.output.totalCount, first.json.output.records.map((x: { sku: string }) => x.sku)]).to.deep.equal([
      2,
      ['D4', 'B2'],
    ]);
    expect(first.json.output.nextCursor).to.equal(null);
    const all = await run('records/find', { documentId: doc, filter: {}, page: { ...page, limit: 3 } });
    const rest = await run('records/find', {
      documentId: doc,
      filter: {},
      page: { ...page, limit: 3, cursor: all.json.output.nextCursor },
    });
    expect([...all.json.output.records, ...rest.json.output.records].map((x: { sku: string }) => x.sku)).to.deep.equal([
      'D4',
      'C3',
      'B2',
      'A1',
    ]);
    // The same query over HTTP, through the Document API.
    const viaApi = await call('POST', documentPath(agent, doc, 'query'), {
      key,
      json: { filter: { qty: { gt: 1 }, status: { ne: 'closed' } }, sort: { field: 'qty', direction: 'desc' } },
    });
    expect(viaApi.json.records.map((x: { sku: string }) => x.sku)).to.deep.equal(['D4', 'B2']);
    // An unknown operator reaches the script as an error naming it.
    const bad = await run('records/find', { documentId: doc, filter: { qty: { greater: 1 } } });
    expect(bad.status, bad.text).to.equal(500);
    const probe = await addHttpEndpoint(ws.adminToken, agent, {
      path: 'records/bad-operator',
      handler: {
        script:
          'try { await documents.query(input.documentId, { qty: { greater: 1 } }); return "read"; } catch (e) { return e.message; }',
      },
    });
    expect(probe).to.be.a('string');
    const caught = await run('records/bad-operator', { documentId: doc });
    expect(caught.json.output).to.equal(
      "filter.qty.greater: unknown operator 'greater' (valid operators: eq, ne, gt, gte, lt, lte, in, contains, exists)",
    );
  });

  it('documents.update sets fields on the matching records only', async () => {
    const doc = await ordersDoc(SEED);
    const r = await run('records/set', { documentId: doc, filter: { status: 'open' }, set: { status: 'shipped' } });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.output).to.deep.equal({ updated: 2 });
    expect(await rows(agent, key, doc)).to.deep.equal([
      ['A1', 1, 'shipped'],
      ['B2', 5, 'shipped'],
      ['C3', 9, 'closed'],
    ]);
  });

  it('documents.delete removes the matching records only; an empty filter needs { all: true }', async () => {
    const doc = await ordersDoc(SEED);
    const r = await run('records/remove', { documentId: doc, filter: { sku: 'B2' } });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.output).to.deep.equal({ deleted: 1 });
    expect(await rows(agent, key, doc)).to.deep.equal([
      ['A1', 1, 'open'],
      ['C3', 9, 'closed'],
    ]);

    const refused = await run('records/remove', { documentId: doc, filter: {} });
    expect(refused.status, refused.text).to.equal(500);
    expect(refused.json.error).to.match(/empty filter/);
    expect(await rows(agent, key, doc)).to.have.length(2);

    const all = await run('records/remove', { documentId: doc, filter: {}, options: { all: true } });
    expect(all.status, all.text).to.equal(200);
    expect(all.json.output).to.deep.equal({ deleted: 2 });
    expect(await rows(agent, key, doc)).to.deep.equal([]);
  });

  it('documents.query with a filter of 70 fields × 1,000 values is refused naming the limit (it once reached the database and failed)', async () => {
    const fields = Array.from({ length: 80 }, (_, i) => ({ name: `f${i}`, type: 'NUMBER' }));
    const wide = await createDocument(ws.adminToken, agent, { name: 'Wide', kind: 'DATABASE', fields });
    const filter = Object.fromEntries(
      Array.from({ length: 70 }, (_, i) => [`f${i}`, Array.from({ length: 1000 }, (_, j) => j)]),
    );
    const r = await run('records/find', { documentId: wide, filter });
    expect(r.status, r.text).to.equal(500);
    expect(r.json.error).to.contain('filter: at most 20 fields per filter (this one has 70)');
  });

  it("a script naming another agent's document is refused with a clear error and neither reads nor changes it", async () => {
    const attempts: [string, unknown][] = [
      ['records/find', { documentId: otherDoc, filter: {} }],
      ['records/add', { documentId: otherDoc, items: [{ sku: 'X9', qty: 1 }] }],
      ['records/set', { documentId: otherDoc, filter: { sku: 'N1' }, set: { status: 'stolen' } }],
      ['records/remove', { documentId: otherDoc, filter: {}, options: { all: true } }],
    ];
    for (const [path, body] of attempts) {
      const r = await run(path, body);
      expect(r.status, `${path}: ${r.text}`).to.equal(500);
      expect(Object.keys(r.json), path).to.deep.equal(['error']);
      expect(r.json.error, path).to.contain(`Document '${otherDoc}' not found`);
      expect(r.text, path).to.not.contain('N1');
    }
    const probe = await run('records/probe', { documentId: otherDoc });
    expect(probe.status, probe.text).to.equal(200);
    expect(probe.json.output).to.deep.equal({ name: 'Error', message: `Document '${otherDoc}' not found` });

    expect(await rows(other, otherKey, otherDoc)).to.deep.equal([['N1', 4, 'open']]);
  });
});
