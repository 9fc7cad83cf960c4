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
import { DocumentService } from '../../src/domain/documents/document.service.js';
import type { Store } from '../../src/domain/ports.js';
import type { Principal } from '../../src/domain/principal.js';

const DOC_FIELDS = 'id agentId name description kind content fields { name type required }';
const EXP_FIELDS = 'id agentId documentId read write';

const CREATE = `mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { ${DOC_FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $i: UpdateDocumentInput!) { updateDocument(id: $id, input: $i) { ${DOC_FIELDS} } }`;
const DELETE = `mutation($id: ID!) { deleteDocument(id: $id) }`;
const EXPOSE = `mutation($a: ID!, $d: ID!, $r: Boolean, $w: Boolean) { exposeDocument(agentId: $a, documentId: $d, read: $r, write: $w) { ${EXP_FIELDS} } }`;
const UNEXPOSE = `mutation($a: ID!, $d: ID!) { unexposeDocument(agentId: $a, documentId: $d) }`;
const READ_BACK = `query($id: ID!) { agent(id: $id) { documents { ${DOC_FIELDS} } documentExposures { ${EXP_FIELDS} } } }`;

async function readBack(token: string, agentId: string) {
  return (await gqlOk(token, READ_BACK, { id: agentId })).agent as { documents: any[]; documentExposures: any[] };
}

function expectRefused(r: GqlResult, code: string, field?: string, label?: string, message?: string): void {
  expect(r.errors, `${label ?? ''} should be refused`).to.be.an('array').that.is.not.empty;
  expect(errorCode(r), label).to.equal(code);
  if (field !== undefined) expect(r.errors![0]!.extensions!.field, label).to.equal(field);
  if (message !== undefined) expect(r.errors![0]!.message, label).to.equal(message);
}

async function createDoc(token: string, agentId: string, input: Record<string, unknown>) {
  return (await gqlOk(token, CREATE, { a: agentId, i: input })).createDocument;
}

describe('GraphQL: documents', () => {
  let ws: TestWorkspace;
  let other: TestWorkspace;
  before(async () => {
    ws = await newWorkspace();
    other = await newWorkspace();
  });

  it('createDocument stores a TEXT document (the default kind) and a DATABASE document with its fields', async () => {
    const agentId = await createAgent(ws.adminToken);
    const text = await createDoc(ws.adminToken, agentId, {
      name: 'FAQ',
      description: 'Common questions',
      content: 'Q: hours?\nA: 9-5',
    });
    expect(text).to.deep.include({
      agentId,
      name: 'FAQ',
      description: 'Common questions',
      kind: 'TEXT',
      content: 'Q: hours?\nA: 9-5',
      fields: [],
    });

    const db = await createDoc(ws.adminToken, agentId, {
      name: 'Orders',
      kind: 'DATABASE',
      fields: [
        { name: 'title', type: 'STRING', required: true },
        { name: 'price', type: 'NUMBER' },
        { name: 'paid', type: 'BOOLEAN', required: false },
        { name: 'placed_at', type: 'DATETIME' },
        { name: '_meta', type: 'JSON', required: true },
      ],
    });
    expect(db).to.deep.include({
      name: 'Orders',
      description: '',
      kind: 'DATABASE',
      content: '',
      fields: [
        { name: 'title', type: 'STRING', required: true },
        { name: 'price', type: 'NUMBER', required: false },
        { name: 'paid', type: 'BOOLEAN', required: false },
        { name: 'placed_at', type: 'DATETIME', required: false },
        { name: '_meta', type: 'JSON', required: true },
      ],
    });

    const { documents, documentExposures } = await readBack(ws.adminToken, agentId);
    expect(documents).to.have.length(2);
    expect(documents.find((d) => d.id === text.id)).to.deep.equal(text);
    expect(documents.find((d) => d.id === db.id)).to.deep.equal(db);
    expect(documentExposures).to.deep.equal([]);
  });

  it('createDocument refuses fields on a TEXT document and bad, duplicate or reserved field names', async () => {
    const agentId = await createAgent(ws.adminToken);
    // Each refusal names the field at fault and says in words what is wrong with it.
    const cases: [string, Record<string, unknown>, string, string?][] = [
      [
        'fields on TEXT',
        { name: 't', fields: [{ name: 'a', type: 'STRING' }] },
        'input.fields',
        'input.fields: only DATABASE documents have fields',
      ],
      ['fields on default kind', { name: 't', kind: 'TEXT', fields: [{ name: 'a', type: 'STRING' }] }, 'input.fields'],
      [
        'duplicate',
        {
          name: 'd',
          kind: 'DATABASE',
          fields: [
            { name: 'a', type: 'STRING' },
            { name: 'a', type: 'NUMBER' },
          ],
        },
        'input.fields.1.name',
        "input.fields.1.name: field 'a' appears twice",
      ],
      [
        'id',
        { name: 'd', kind: 'DATABASE', fields: [{ name: 'id', type: 'STRING' }] },
        'input.fields.0.name',
        "input.fields.0.name: 'id' is reserved for the record id",
      ],
      [
        '__proto__',
        {
          name: 'd',
          kind: 'DATABASE',
          fields: [
            { name: 'ok', type: 'STRING' },
            { name: '__proto__', type: 'JSON' },
          ],
        },
        'input.fields.1.name',
        "input.fields.1.name: '__proto__' cannot be a field name: JavaScript clients could not hold it as a value",
      ],
      [
        'leading digit',
        {
          name: 'd',
          kind: 'DATABASE',
          fields: [
            { name: 'ok', type: 'STRING' },
            { name: '1abc', type: 'STRING' },
          ],
        },
        'input.fields.1.name',
      ],
      ['dash', { name: 'd', kind: 'DATABASE', fields: [{ name: 'a-b', type: 'STRING' }] }, 'input.fields.0.name'],
      ['space', { name: 'd', kind: 'DATABASE', fields: [{ name: 'a b', type: 'STRING' }] }, 'input.fields.0.name'],
      ['empty', { name: 'd', kind: 'DATABASE', fields: [{ name: '', type: 'STRING' }] }, 'input.fields.0.name'],
      [
        'too long',
        { name: 'd', kind: 'DATABASE', fields: [{ name: 'x'.repeat(65), type: 'STRING' }] },
        'input.fields.0.name',
      ],
      ['empty name', { name: '   ', kind: 'DATABASE' }, 'input.name'],
    ];
    for (const [label, input, field, message] of cases) {
      expectRefused(
        await gql(ws.adminToken, CREATE, { a: agentId, i: input }),
        'BAD_USER_INPUT',
        field,
        label,
        message,
      );
    }
    expect((await readBack(ws.adminToken, agentId)).documents).to.deep.equal([]);
    // Names of Object.prototype members are ordinary field names (records are null-prototype maps).
    const methods = await createDoc(ws.adminToken, agentId, {
      name: 'm',
      kind: 'DATABASE',
      fields: [
        { name: 'constructor', type: 'STRING' },
        { name: '__proto', type: 'STRING' },
      ],
    });
    expect(methods.fields.map((f: { name: string }) => f.name)).to.deep.equal(['constructor', '__proto']);
    // A 64-character name starting with _ is allowed.
    const ok = await createDoc(ws.adminToken, agentId, {
      name: 'd',
      kind: 'DATABASE',
      fields: [{ name: `_${'x'.repeat(63)}`, type: 'STRING' }],
    });
    expect(ok.fields).to.deep.equal([{ name: `_${'x'.repeat(63)}`, type: 'STRING', required: false }]);
  });

  it("createDocument on an unknown agent or another workspace's agent is NOT_FOUND", async () => {
    expectRefused(await gql(ws.adminToken, CREATE, { a: 'agt_missing', i: { name: 'x' } }), 'NOT_FOUND');
    const foreign = await createAgent(other.adminToken);
    expectRefused(await gql(ws.adminToken, CREATE, { a: foreign, i: { name: 'x' } }), 'NOT_FOUND');
    expect((await readBack(other.adminToken, foreign)).documents).to.deep.equal([]);
  });

  it('updateDocument changes only the given fields and replaces a database schema', async () => {
    const agentId = await createAgent(ws.adminToken);
    const text = await createDoc(ws.adminToken, agentId, { name: 'Notes', description: 'keep me', content: 'old' });
    const u1 = (await gqlOk(ws.adminToken, UPDATE, { id: text.id, i: { name: 'Renamed', content: 'new' } }))
      .updateDocument;
    expect(u1).to.deep.equal({ ...text, name: 'Renamed', content: 'new' });
    // An empty field list on a TEXT document changes nothing and is allowed.
    const u2 = (await gqlOk(ws.adminToken, UPDATE, { id: text.id, i: { fields: [], description: '' } })).updateDocument;
    expect(u2).to.deep.equal({ ...u1, description: '' });

    const db = await createDoc(ws.adminToken, agentId, {
      name: 'Rows',
      kind: 'DATABASE',
      fields: [{ name: 'a', type: 'STRING' }],
    });
    const u3 = (
      await gqlOk(ws.adminToken, UPDATE, {
        id: db.id,
        i: {
          fields: [
            { name: 'b', type: 'NUMBER', required: true },
            { name: 'c', type: 'JSON' },
          ],
        },
      })
    ).updateDocument;
    expect(u3).to.deep.equal({
      ...db,
      fields: [
        { name: 'b', type: 'NUMBER', required: true },
        { name: 'c', type: 'JSON', required: false },
      ],
    });

    const { documents } = await readBack(ws.adminToken, agentId);
    expect(documents.find((d) => d.id === text.id)).to.deep.equal(u2);
    expect(documents.find((d) => d.id === db.id)).to.deep.equal(u3);
  });

  it('updateDocument refuses fields on a TEXT document, bad fields, an empty name, and unknown or foreign ids', async () => {
    const agentId = await createAgent(ws.adminToken);
    const text = await createDoc(ws.adminToken, agentId, { name: 'T', content: 'c' });
    const db = await createDoc(ws.adminToken, agentId, {
      name: 'D',
      kind: 'DATABASE',
      fields: [{ name: 'a', type: 'STRING' }],
    });
    expectRefused(
      await gql(ws.adminToken, UPDATE, { id: text.id, i: { fields: [{ name: 'a', type: 'STRING' }] } }),
      'BAD_USER_INPUT',
      'input.fields',
      'TEXT',
      'input.fields: only DATABASE documents have fields',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE, {
        id: db.id,
        i: {
          fields: [
            { name: 'x', type: 'STRING' },
            { name: 'x', type: 'STRING' },
          ],
        },
      }),
      'BAD_USER_INPUT',
      'input.fields.1.name',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE, { id: db.id, i: { fields: [{ name: 'id', type: 'STRING' }] } }),
      'BAD_USER_INPUT',
      'input.fields.0.name',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE, { id: db.id, i: { fields: [{ name: '9', type: 'STRING' }] } }),
      'BAD_USER_INPUT',
      'input.fields.0.name',
    );
    expectRefused(await gql(ws.adminToken, UPDATE, { id: db.id, i: { name: '' } }), 'BAD_USER_INPUT', 'input.name');
    expectRefused(
      await gql(ws.adminToken, UPDATE, { id: 'doc_missing', i: { name: 'x' } }),
      'NOT_FOUND',
      undefined,
      'unknown',
      "Document 'doc_missing' not found",
    );

    const foreignAgent = await createAgent(other.adminToken);
    const foreign = await createDoc(other.adminToken, foreignAgent, { name: 'Theirs', content: 'secret' });
    expectRefused(
      await gql(ws.adminToken, UPDATE, { id: foreign.id, i: { content: 'overwritten' } }),
      'NOT_FOUND',
      undefined,
      'foreign',
      `Document '${foreign.id}' not found`,
    );
    expectRefused(
      await gql(ws.adminToken, DELETE, { id: foreign.id }),
      'NOT_FOUND',
      undefined,
      'foreign',
      `Document '${foreign.id}' not found`,
    );
    expect((await readBack(other.adminToken, foreignAgent)).documents).to.deep.equal([foreign]);

    const { documents } = await readBack(ws.adminToken, agentId);
    expect(documents.find((d) => d.id === text.id)).to.deep.equal(text);
    expect(documents.find((d) => d.id === db.id)).to.deep.equal(db);
  });

  it('a member cannot change documents of a private agent they cannot see', async () => {
    const alice = await ws.addMember();
    const bob = await ws.addMember();
    const agentId = await createAgent(alice.token, { visibility: 'PRIVATE' });
    const doc = await createDoc(alice.token, agentId, { name: 'Private', content: 'x' });
    expectRefused(await gql(bob.token, CREATE, { a: agentId, i: { name: 'y' } }), 'NOT_FOUND');
    // The refusal names the document, not the private agent it belongs to.
    expectRefused(
      await gql(bob.token, UPDATE, { id: doc.id, i: { content: 'y' } }),
      'NOT_FOUND',
      undefined,
      'update',
      `Document '${doc.id}' not found`,
    );
    expectRefused(
      await gql(bob.token, DELETE, { id: doc.id }),
      'NOT_FOUND',
      undefined,
      'delete',
      `Document '${doc.id}' not found`,
    );
    expectRefused(await gql(bob.token, EXPOSE, { a: agentId, d: doc.id }), 'NOT_FOUND');
    const back = await readBack(alice.token, agentId);
    expect(back.documents).to.deep.equal([doc]);
    expect(back.documentExposures).to.deep.equal([]);
  });

  it('exposeDocument defaults to read only, re-exposing changes the permissions, read=false write=false is refused', async () => {
    const agentId = await createAgent(ws.adminToken);
    const doc = await createDoc(ws.adminToken, agentId, { name: 'Shared', content: 'x' });

    const e1 = (await gqlOk(ws.adminToken, EXPOSE, { a: agentId, d: doc.id })).exposeDocument;
    expect(e1).to.deep.include({ agentId, documentId: doc.id, read: true, write: false });
    expect((await readBack(ws.adminToken, agentId)).documentExposures).to.deep.equal([e1]);

    const e2 = (await gqlOk(ws.adminToken, EXPOSE, { a: agentId, d: doc.id, r: false, w: true })).exposeDocument;
    expect(e2).to.deep.equal({ ...e1, read: false, write: true });

    // Only write given: read keeps its default (true).
    const e3 = (await gqlOk(ws.adminToken, EXPOSE, { a: agentId, d: doc.id, w: true })).exposeDocument;
    expect(e3).to.deep.equal({ ...e1, read: true, write: true });

    for (const [r, w] of [
      [false, false],
      [false, undefined],
      [false, null],
    ] as const) {
      expectRefused(
        await gql(ws.adminToken, EXPOSE, { a: agentId, d: doc.id, r, w }),
        'BAD_USER_INPUT',
        undefined,
        `read=${r} write=${w}`,
        'give read, write, mcp or several of them',
      );
    }
    // The refused calls left the exposure as it was.
    expect((await readBack(ws.adminToken, agentId)).documentExposures).to.deep.equal([e3]);
  });

  it('exposeDocument: mcp is off unless given, kept when omitted, and alone is enough', async () => {
    const agentId = await createAgent(ws.adminToken);
    const doc = await createDoc(ws.adminToken, agentId, { name: 'Handbook', content: 'x' });
    const EXPOSE_MCP = `mutation($a: ID!, $d: ID!, $r: Boolean, $w: Boolean, $m: Boolean) { exposeDocument(agentId: $a, documentId: $d, read: $r, write: $w, mcp: $m) { read write mcp } }`;
    const expose = async (v: Record<string, unknown>) =>
      (await gqlOk(ws.adminToken, EXPOSE_MCP, { a: agentId, d: doc.id, ...v })).exposeDocument;

    expect(await expose({})).to.deep.equal({ read: true, write: false, mcp: false });
    expect(await expose({ m: true })).to.deep.equal({ read: true, write: false, mcp: true });
    expect(await expose({ w: true })).to.deep.equal({ read: true, write: true, mcp: true });
    // The MCP permission alone exposes the document: nothing on the Document API.
    expect(await expose({ r: false, w: false })).to.deep.equal({ read: false, write: false, mcp: true });
    expectRefused(
      await gql(ws.adminToken, EXPOSE_MCP, { a: agentId, d: doc.id, r: false, m: false }),
      'BAD_USER_INPUT',
      undefined,
      'all off',
      'give read, write, mcp or several of them',
    );
    expect(
      (await readBack(ws.adminToken, agentId)).documentExposures.map((e: { read: boolean; write: boolean }) => [
        e.read,
        e.write,
      ]),
    ).to.deep.equal([[false, false]]);
    const { agent } = await gqlOk(ws.adminToken, 'query($id: ID!) { agent(id: $id) { documentExposures { mcp } } }', {
      id: agentId,
    });
    expect(agent.documentExposures).to.deep.equal([{ mcp: true }]);
  });

  it('concurrent exposeDocument calls for one document all succeed and leave one exposure', async () => {
    // Several rounds, so that on PostgreSQL at least one round has the inserts truly race.
    for (let round = 0; round < 3; round++) {
      const agentId = await createAgent(ws.adminToken);
      const doc = await createDoc(ws.adminToken, agentId, { name: 'Raced', content: 'x' });
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => gql(ws.adminToken, EXPOSE, { a: agentId, d: doc.id, w: i % 2 === 0 })),
      );
      expect(
        results.map((r) => errorCode(r) ?? 'ok'),
        `round ${round}`,
      ).to.deep.equal(Array(6).fill('ok'));
      const ids = new Set(results.map((r) => r.data.exposeDocument.id));
      expect(ids.size, `round ${round}`).to.equal(1);
      const { documentExposures } = await readBack(ws.adminToken, agentId);
      expect(documentExposures).to.have.length(1);
      expect(documentExposures[0]).to.deep.include({ id: [...ids][0], documentId: doc.id, read: true });
    }
  });

  it('an agent cannot create, change or delete its documents as itself: members configure them', async () => {
    const agentId = await createAgent(ws.adminToken);
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!, $c: CapabilitiesInput!) { setCapabilities(agentId: $a, input: $c) { id } }',
      { a: agentId, c: { documents: true, endpointManagement: true } },
    );
    const doc = await createDoc(ws.adminToken, agentId, { name: 'Mine', content: 'x' });
    const self: Principal = { kind: 'agentSelf', workspaceId: ws.workspaceId, agentId };
    const documents = h().service.services.documents;
    const words = 'An agent may not change its own keys, limits, guardrails, capabilities or settings';
    for (const [label, attempt] of [
      ['create', () => documents.create(self, agentId, { name: 'New' })],
      ['update', () => documents.update(self, doc.id, { content: 'changed' })],
      ['delete', () => documents.delete(self, doc.id)],
    ] as const) {
      const err = await (attempt as () => Promise<unknown>)().then(
        () => null,
        (e: Error & { code?: string }) => e,
      );
      expect(err?.code, label).to.equal('FORBIDDEN');
      expect(err?.message, label).to.equal(words);
    }
    expect((await readBack(ws.adminToken, agentId)).documents).to.deep.equal([doc]);
  });

  it("an exposeDocument that loses the race to insert the exposure changes the winner's permissions instead of failing", async () => {
    // The race as it happens on PostgreSQL, made certain: this call looked for the exposure before a
    // concurrent call committed it, so its own insert meets the unique (agent, document) pair.
    const agentId = await createAgent(ws.adminToken);
    const doc = await createDoc(ws.adminToken, agentId, { name: 'Raced once', content: 'x' });
    const winner = (await gqlOk(ws.adminToken, EXPOSE, { a: agentId, d: doc.id })).exposeDocument;
    const real = h().service.store;
    let lookups = 0;
    const lateStore: Store = {
      repos: real.repos,
      ping: () => real.ping(),
      transaction: (fn) =>
        real.transaction((r) =>
          fn({
            ...r,
            exposures: { ...r.exposures, find: async (a, d) => (lookups++ === 0 ? null : r.exposures.find(a, d)) },
          }),
        ),
    };
    const admin: Principal = { kind: 'member', memberId: ws.adminId, workspaceId: ws.workspaceId, role: 'ADMIN' };
    const loser = await new DocumentService(lateStore, { now: () => new Date() }).expose(admin, agentId, doc.id, {
      read: false,
      write: true,
    });
    expect(lookups).to.equal(2);
    expect(loser).to.deep.include({ id: winner.id, documentId: doc.id, read: false, write: true });
    expect((await readBack(ws.adminToken, agentId)).documentExposures).to.deep.equal([
      { ...winner, read: false, write: true },
    ]);
  });

  it("exposeDocument refuses another agent's document, an unknown document and an unknown agent with NOT_FOUND", async () => {
    const agentId = await createAgent(ws.adminToken);
    const otherAgent = await createAgent(ws.adminToken);
    const theirs = await createDoc(ws.adminToken, otherAgent, { name: 'Not mine', content: 'x' });
    expectRefused(
      await gql(ws.adminToken, EXPOSE, { a: agentId, d: theirs.id }),
      'NOT_FOUND',
      undefined,
      "other agent's document",
      `Document '${theirs.id}' not found`,
    );
    expectRefused(
      await gql(ws.adminToken, EXPOSE, { a: agentId, d: 'doc_missing' }),
      'NOT_FOUND',
      undefined,
      'unknown document',
      "Document 'doc_missing' not found",
    );
    expectRefused(
      await gql(ws.adminToken, EXPOSE, { a: 'agt_missing', d: theirs.id }),
      'NOT_FOUND',
      undefined,
      'unknown agent',
    );
    const foreignAgent = await createAgent(other.adminToken);
    const foreign = await createDoc(other.adminToken, foreignAgent, { name: 'Foreign', content: 'x' });
    expectRefused(
      await gql(ws.adminToken, EXPOSE, { a: foreignAgent, d: foreign.id }),
      'NOT_FOUND',
      undefined,
      "other workspace's agent",
    );
    expectRefused(
      await gql(ws.adminToken, EXPOSE, { a: agentId, d: foreign.id }),
      'NOT_FOUND',
      undefined,
      "other workspace's document",
    );
    expect((await readBack(ws.adminToken, agentId)).documentExposures).to.deep.equal([]);
    expect((await readBack(ws.adminToken, otherAgent)).documentExposures).to.deep.equal([]);
    expect((await readBack(other.adminToken, foreignAgent)).documentExposures).to.deep.equal([]);
  });

  it('unexposeDocument removes the exposure; a document that is not exposed is NOT_FOUND', async () => {
    const agentId = await createAgent(ws.adminToken);
    const a = await createDoc(ws.adminToken, agentId, { name: 'A', content: 'x' });
    const b = await createDoc(ws.adminToken, agentId, { name: 'B', content: 'x' });
    expectRefused(
      await gql(ws.adminToken, UNEXPOSE, { a: agentId, d: a.id }),
      'NOT_FOUND',
      undefined,
      'never exposed',
      `Document exposure '${a.id}' not found`,
    );
    await gqlOk(ws.adminToken, EXPOSE, { a: agentId, d: a.id });
    const eb = (await gqlOk(ws.adminToken, EXPOSE, { a: agentId, d: b.id, w: true })).exposeDocument;

    expect((await gqlOk(ws.adminToken, UNEXPOSE, { a: agentId, d: a.id })).unexposeDocument).to.equal(true);
    expect((await readBack(ws.adminToken, agentId)).documentExposures).to.deep.equal([eb]);
    expectRefused(await gql(ws.adminToken, UNEXPOSE, { a: agentId, d: a.id }), 'NOT_FOUND', undefined, 'second time');
    expectRefused(
      await gql(ws.adminToken, UNEXPOSE, { a: 'agt_missing', d: b.id }),
      'NOT_FOUND',
      undefined,
      'unknown agent',
    );
    const foreignAgent = await createAgent(other.adminToken);
    expectRefused(
      await gql(ws.adminToken, UNEXPOSE, { a: foreignAgent, d: b.id }),
      'NOT_FOUND',
      undefined,
      "other workspace's agent",
    );
    // The document itself is still there, and can be exposed again.
    expect((await readBack(ws.adminToken, agentId)).documents.map((d) => d.id)).to.have.members([a.id, b.id]);
    const again = (await gqlOk(ws.adminToken, EXPOSE, { a: agentId, d: a.id })).exposeDocument;
    expect(again).to.deep.include({ documentId: a.id, read: true, write: false });
  });

  it('deleteDocument removes the document and its exposure; deleting twice is NOT_FOUND', async () => {
    const agentId = await createAgent(ws.adminToken);
    const keep = await createDoc(ws.adminToken, agentId, { name: 'Keep', content: 'x' });
    const gone = await createDoc(ws.adminToken, agentId, {
      name: 'Gone',
      kind: 'DATABASE',
      fields: [{ name: 'a', type: 'STRING' }],
    });
    const ek = (await gqlOk(ws.adminToken, EXPOSE, { a: agentId, d: keep.id })).exposeDocument;
    await gqlOk(ws.adminToken, EXPOSE, { a: agentId, d: gone.id, w: true });

    expect((await gqlOk(ws.adminToken, DELETE, { id: gone.id })).deleteDocument).to.equal(true);
    const back = await readBack(ws.adminToken, agentId);
    expect(back.documents).to.deep.equal([keep]);
    expect(back.documentExposures).to.deep.equal([ek]);
    expectRefused(await gql(ws.adminToken, DELETE, { id: gone.id }), 'NOT_FOUND');
    expectRefused(await gql(ws.adminToken, UPDATE, { id: gone.id, i: { name: 'x' } }), 'NOT_FOUND');
    expectRefused(await gql(ws.adminToken, EXPOSE, { a: agentId, d: gone.id }), 'NOT_FOUND');
  });
});
