import { expect } from 'chai';
import type { Principal } from '../../src/domain/principal.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { refusal } from '../helpers/runtime.js';

// The rules of database records, through the domain service every surface uses (the Document API,
// the script host API and the Documents capability): field types, required fields, filters, paging,
// atomic inserts and the difference between the Document API (exposure permissions) and the agent
// itself (its own documents, no exposure needed).

const FIELDS = [
  { name: 'title', type: 'STRING', required: true },
  { name: 'score', type: 'NUMBER' },
  { name: 'done', type: 'BOOLEAN' },
  { name: 'due', type: 'DATETIME' },
  { name: 'meta', type: 'JSON' },
];

/** A stored record without its id: the fields as written. */
const fieldsOf = ({ id: _id, ...data }: { id: string } & Record<string, unknown>) => data;

describe('records of database documents (domain rules)', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let agentId: string;
  let otherAgentId: string;
  let docId: string;
  let textDocId: string;
  let otherDocId: string;
  let roDocId: string;
  let woDocId: string;
  let hiddenDocId: string;
  let member: Principal;
  let key: Principal;
  let self: Principal;
  const records = () => h().service.services.records;

  const createDoc = async (agent: string, input: Record<string, unknown>) =>
    (
      await gqlOk(
        ws.adminToken,
        'mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }',
        { a: agent, i: input },
      )
    ).createDocument.id as string;
  const expose = (agent: string, doc: string, read: boolean, write: boolean) =>
    gqlOk(
      ws.adminToken,
      'mutation($a: ID!, $d: ID!, $r: Boolean, $w: Boolean) { exposeDocument(agentId: $a, documentId: $d, read: $r, write: $w) { id } }',
      { a: agent, d: doc, r: read, w: write },
    );

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken);
    otherAgentId = await createAgent(ws.adminToken);
    for (const a of [agentId, otherAgentId]) {
      await gqlOk(
        ws.adminToken,
        'mutation($a: ID!) { setCapabilities(agentId: $a, input: { documents: true }) { id } }',
        { a },
      );
    }
    docId = await createDoc(agentId, { name: 'Tasks', kind: 'DATABASE', fields: FIELDS });
    textDocId = await createDoc(agentId, { name: 'Notes', kind: 'TEXT', content: 'hello' });
    roDocId = await createDoc(agentId, { name: 'Read only', kind: 'DATABASE', fields: FIELDS });
    woDocId = await createDoc(agentId, { name: 'Write only', kind: 'DATABASE', fields: FIELDS });
    hiddenDocId = await createDoc(agentId, { name: 'Hidden', kind: 'DATABASE', fields: FIELDS });
    otherDocId = await createDoc(otherAgentId, { name: 'Theirs', kind: 'DATABASE', fields: FIELDS });
    await expose(agentId, docId, true, true);
    await expose(agentId, textDocId, true, true);
    await expose(agentId, roDocId, true, false);
    await expose(agentId, woDocId, false, true);
    await expose(otherAgentId, otherDocId, true, true);
    member = { kind: 'member', memberId: ws.adminId, workspaceId: ws.workspaceId, role: 'ADMIN' };
    key = { kind: 'agentKey', keyId: 'key_test', workspaceId: ws.workspaceId, agentId };
    self = { kind: 'agentSelf', workspaceId: ws.workspaceId, agentId };
  });

  beforeEach(async () => {
    await records().delete(member, agentId, docId, 'agent', { all: true });
  });

  const insert = (items: unknown, p: Principal = key, doc = docId) =>
    records().insert(p, agentId, doc, 'documentApi', items);
  const count = async () => (await records().query(member, agentId, docId, 'agent', { limit: 1000 })).totalCount;

  describe('field types', () => {
    it('accepts each type with a value of that type, and null for fields that are not required', async () => {
      const r = await insert([
        { title: 'a', score: 1.5, done: true, due: '2026-11-23', meta: { any: ['thing'] } },
        { title: 'b', score: -3, done: false, due: '2026-11-23T10:15:30.123Z', meta: 'text' },
        { title: 'c', score: null, done: null, due: '2026-11-23 10:15+01:00', meta: null },
        { title: 'd', due: '2026-11-23T10:15:30+0530' },
      ]);
      expect(r.inserted).to.equal(4);
      expect(r.records.map(fieldsOf)).to.deep.equal([
        { title: 'a', score: 1.5, done: true, due: '2026-11-23', meta: { any: ['thing'] } },
        { title: 'b', score: -3, done: false, due: '2026-11-23T10:15:30.123Z', meta: 'text' },
        { title: 'c', score: null, done: null, due: '2026-11-23 10:15+01:00', meta: null },
        { title: 'd', due: '2026-11-23T10:15:30+0530' },
      ]);
      expect(await count()).to.equal(4);
    });

    const wrong: [string, Record<string, unknown>, RegExp][] = [
      ['a number in a STRING field', { title: 5 }, /'title' must be a string/],
      ['a string in a NUMBER field', { title: 'x', score: '5' }, /'score' must be a number/],
      ['a non-finite NUMBER', { title: 'x', score: Number.POSITIVE_INFINITY }, /'score' must be a number/],
      ['NaN in a NUMBER field', { title: 'x', score: Number.NaN }, /'score' must be a number/],
      ['a string in a BOOLEAN field', { title: 'x', done: 'true' }, /'done' must be true or false/],
      ['a number in a BOOLEAN field', { title: 'x', done: 1 }, /'done' must be true or false/],
      ['a free-text DATETIME', { title: 'x', due: 'tomorrow' }, /'due' must be an ISO 8601/],
      ['a DATETIME with text around it', { title: 'x', due: 'on 2026-11-23' }, /'due' must be an ISO 8601/],
      ['a DATETIME with trailing text', { title: 'x', due: '2026-11-23 or later' }, /'due' must be an ISO 8601/],
      ['an impossible DATETIME', { title: 'x', due: '2026-13-45' }, /'due' must be an ISO 8601/],
      ['a DATETIME as a number', { title: 'x', due: 1_700_000_000 }, /'due' must be an ISO 8601/],
      ['a DATETIME with a one-letter zone', { title: 'x', due: '2026-11-23T10:15Q' }, /'due' must be an ISO 8601/],
      ['a STRING over 100,000 characters', { title: 'x'.repeat(100_001) }, /'title' is longer than 100000 characters/],
    ];
    for (const [label, item, message] of wrong) {
      it(`refuses ${label}, naming the item and field, and inserts nothing`, async () => {
        const err = await refusal(() => insert([{ title: 'fine' }, item]));
        expect(err.code).to.equal('INVALID');
        expect(err.message).to.match(message);
        expect(err.details?.field).to.match(/^items\.1\./);
        expect(await count()).to.equal(0);
      });
    }

    it('a STRING of exactly 100,000 characters is accepted', async () => {
      expect((await insert([{ title: 'x'.repeat(100_000) }])).inserted).to.equal(1);
    });

    it('a date-time with seconds and a zone without a colon is accepted', async () => {
      expect((await insert([{ title: 'x', due: '2026-11-23T10:15:30-0800' }])).inserted).to.equal(1);
    });
  });

  describe('record shape', () => {
    it('a required field must be present and not null', async () => {
      const missing = await refusal(() => insert([{ score: 1 }]));
      expect(missing.message).to.equal("items.0.title: 'title' is required");
      expect(missing.details?.field).to.equal('items.0.title');
      const nulled = await refusal(() => insert([{ title: null }]));
      expect(nulled.message).to.equal("items.0.title: 'title' is required");
      expect(nulled.details?.field).to.equal('items.0.title');
    });

    it('an unknown field is refused with the list of fields; an `id` is ignored and assigned by the service', async () => {
      const err = await refusal(() => insert([{ title: 'x', colour: 'red' }]));
      expect(err.message).to.equal("items.0.colour: unknown field 'colour' (fields: title, score, done, due, meta)");
      expect(err.details?.field).to.equal('items.0.colour');
      const r = await insert([{ id: 'rec_chosen', title: 'x' }]);
      expect(r.records[0]!.id).to.match(/^rec_/).and.not.equal('rec_chosen');
      expect(fieldsOf(r.records[0]!)).to.deep.equal({ title: 'x' });
    });

    it('required fields named like Object.prototype members are enforced, and a __proto__ key is an unknown field', async () => {
      const names = ['constructor', 'toString', 'hasOwnProperty', 'valueOf'];
      const odd = await createDoc(agentId, {
        name: 'Odd',
        kind: 'DATABASE',
        fields: names.map((name) => ({ name, type: 'STRING', required: true })),
      });
      const full = Object.fromEntries(names.map((n) => [n, n.toUpperCase()]));
      for (const n of names) {
        const { [n]: _left, ...missing } = full;
        expect((await refusal(() => records().insert(self, agentId, odd, 'agent', [missing]))).message).to.equal(
          `items.0.${n}: '${n}' is required`,
        );
        expect(
          (await refusal(() => records().update(self, agentId, odd, 'agent', { all: true, set: { [n]: null } })))
            .message,
        ).to.equal(`set.${n}: '${n}' is required`);
      }
      await records().insert(self, agentId, odd, 'agent', [full]);
      const found = await records().query(self, agentId, odd, 'agent', { filter: { toString: 'TOSTRING' } });
      expect(found.records.map(fieldsOf)).to.deep.equal([full]);
      // As a JSON parser builds it: an own key named __proto__, which a plain object would drop.
      const parsed = (json: string) => JSON.parse(json) as Record<string, unknown>;
      expect((await refusal(() => insert([parsed('{"title": "x", "__proto__": {"score": 1}}')]))).message).to.match(
        /^items\.0\.__proto__: unknown field '__proto__'/,
      );
      expect(
        (
          await refusal(() =>
            records().update(key, agentId, docId, 'documentApi', { all: true, set: parsed('{"__proto__": 1}') }),
          )
        ).message,
      ).to.equal("set.__proto__: unknown field '__proto__'");
      expect(
        (
          await refusal(() =>
            records().delete(key, agentId, docId, 'documentApi', { filter: parsed('{"__proto__": 1}') }),
          )
        ).message,
      ).to.equal("filter.__proto__: unknown field '__proto__'");
    });

    it('an unknown field of a document without fields says there are none', async () => {
      const bare = await createDoc(agentId, { name: 'Bare', kind: 'DATABASE', fields: [] });
      const err = await refusal(() => records().insert(self, agentId, bare, 'agent', [{ a: 1 }]));
      expect(err.message).to.equal("items.0.a: unknown field 'a' (fields: none)");
    });

    it('each item must be an object', async () => {
      for (const item of ['text', 5, null, ['title']]) {
        const err = await refusal(() => insert([{ title: 'ok' }, item]));
        expect(err.message).to.equal('items.1: each item must be an object');
        expect(err.details?.field).to.equal('items.1');
      }
      expect(await count()).to.equal(0);
    });

    it('items must be a non-empty array of at most 1000 records; 1000 are inserted in one call', async () => {
      for (const items of [[], undefined, 'x', { title: 'x' }]) {
        const err = await refusal(() => insert(items));
        expect(err.message).to.equal('items: give a non-empty array of records');
        expect(err.details?.field).to.equal('items');
      }
      const tooMany = await refusal(() => insert(Array.from({ length: 1001 }, (_, i) => ({ title: `t${i}` }))));
      expect(tooMany.message).to.equal('items: at most 1000 records per call');
      expect(await count()).to.equal(0);
      const r = await insert(Array.from({ length: 1000 }, (_, i) => ({ title: `t${i}` })));
      expect(r.inserted).to.equal(1000);
      expect(await count()).to.equal(1000);
    });
  });

  describe('filters, updates and deletes', () => {
    beforeEach(async () => {
      await insert([
        { title: 'a', score: 1, done: false },
        { title: 'b', score: 2, done: true },
        { title: 'c', score: 3, done: false },
      ]);
    });

    it('filters by equality, by any of a list, and by id', async () => {
      const q = (filter: unknown) => records().query(key, agentId, docId, 'documentApi', { filter });
      expect((await q({ done: false })).records.map((r) => r.title).sort()).to.deep.equal(['a', 'c']);
      expect((await q({ score: [1, 2] })).records.map((r) => r.title).sort()).to.deep.equal(['a', 'b']);
      const b = (await q({ title: 'b' })).records[0]!;
      expect((await q({ id: b.id })).records.map((r) => r.title)).to.deep.equal(['b']);
      expect((await q(undefined)).totalCount).to.equal(3);
      expect((await q(null)).totalCount).to.equal(3);
    });

    it('refuses a filter that is not an object, names an unknown field, or lists 0 or more than 1000 values', async () => {
      const q = (filter: unknown) => refusal(() => records().query(key, agentId, docId, 'documentApi', { filter }));
      for (const f of ['x', 3, [1]])
        expect((await q(f)).message).to.equal('filter: must be an object mapping field names to values');
      const unknown = await q({ colour: 'red' });
      expect(unknown.message).to.equal("filter.colour: unknown field 'colour'");
      expect(unknown.details?.field).to.equal('filter.colour');
      expect((await q({ score: [] })).message).to.equal('filter.score: a list of values must have 1 to 1000 entries');
      expect((await q({ score: Array.from({ length: 1001 }, (_, i) => i) })).message).to.equal(
        'filter.score: a list of values must have 1 to 1000 entries',
      );
      const thousand = await records().query(key, agentId, docId, 'documentApi', {
        filter: { score: Array.from({ length: 1000 }, (_, i) => i + 2) },
      });
      expect(thousand.totalCount).to.equal(2);
    });

    it('a filter has at most 20 fields and 1000 values in all, for query, update and delete as the agent and through the Document API', async () => {
      const wide = await createDoc(agentId, {
        name: 'Wide',
        kind: 'DATABASE',
        fields: Array.from({ length: 80 }, (_, i) => ({ name: `f${i}`, type: 'NUMBER' })),
      });
      await expose(agentId, wide, true, true);
      const filterOf = (fields: number, values: number) =>
        Object.fromEntries(
          Array.from({ length: fields }, (_, i) => [`f${i}`, Array.from({ length: values }, (_, j) => j)]),
        );
      const ops = (filter: unknown) =>
        (['documentApi', 'agent'] as const).flatMap((via) => {
          const p = via === 'agent' ? self : key;
          return [
            () => records().query(p, agentId, wide, via, { filter }),
            () => records().update(p, agentId, wide, via, { filter, set: { f0: 1 } }),
            () => records().delete(p, agentId, wide, via, { filter }),
          ];
        });
      for (const op of ops(filterOf(70, 1000))) {
        const err = await refusal(op);
        expect(err.message).to.equal('filter: at most 20 fields per filter (this one has 70)');
        expect(err.details?.field).to.equal('filter');
      }
      for (const op of ops(filterOf(21, 1)))
        expect((await refusal(op)).message).to.equal('filter: at most 20 fields per filter (this one has 21)');
      const overValues = { ...filterOf(19, 1), f19: Array.from({ length: 982 }, (_, j) => j) }; // 19 + 982 = 1001
      for (const op of ops(overValues))
        expect((await refusal(op)).message).to.equal(
          'filter: at most 1000 values in all, over every field (this one has 1001)',
        );
      // At both limits at once: 20 fields, 1000 values.
      const atLimit = { ...filterOf(19, 1), f19: Array.from({ length: 981 }, (_, j) => j) };
      const zeros = Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`f${i}`, 0]));
      await records().insert(self, agentId, wide, 'agent', [
        { ...zeros, f19: 980 },
        { ...zeros, f19: 981 },
      ]);
      const found = await records().query(key, agentId, wide, 'documentApi', { filter: atLimit });
      expect(found.records.map((r) => r.f19)).to.deep.equal([980]);
      expect(
        await records().update(key, agentId, wide, 'documentApi', { filter: atLimit, set: { f20: 7 } }),
      ).to.deep.equal({ updated: 1 });
      expect(await records().delete(key, agentId, wide, 'documentApi', { filter: atLimit })).to.deep.equal({
        deleted: 1,
      });
    });

    it('pages with limit and offset: 100 by default, limit 1 to 1000, offset 0 or more', async () => {
      const page = await records().query(key, agentId, docId, 'documentApi', { limit: 2, offset: 1 });
      expect(page.records).to.have.length(2);
      expect(page.totalCount).to.equal(3);
      const q = (limit: unknown, offset: unknown) =>
        refusal(() => records().query(key, agentId, docId, 'documentApi', { limit, offset }));
      expect((await q(0, 0)).message).to.equal('limit: must be between 1 and 1000');
      expect((await q(1001, 0)).message).to.equal('limit: must be between 1 and 1000');
      expect((await q(10, -1)).message).to.equal('offset: must be 0 or more');
      await insert(Array.from({ length: 120 }, (_, i) => ({ title: `p${i}` })));
      expect((await records().query(key, agentId, docId, 'documentApi', {})).records).to.have.length(100);
      expect(
        (await records().query(key, agentId, docId, 'documentApi', { limit: null, offset: null })).records,
      ).to.have.length(100);
      const read = await records().read(key, agentId, docId, 'documentApi', { limit: 1000 });
      expect((read as { data: { records: unknown[] } }).data.records).to.have.length(123);
    });

    it('update sets fields on the matches only and validates the values', async () => {
      const r = await records().update(key, agentId, docId, 'documentApi', {
        filter: { done: false },
        set: { done: true, score: 10 },
      });
      expect(r).to.deep.equal({ updated: 2 });
      const all = (await records().query(key, agentId, docId, 'documentApi', {})).records;
      expect(
        all
          .filter((d) => d.score === 10)
          .map((d) => d.title)
          .sort(),
      ).to.deep.equal(['a', 'c']);
      expect(all.find((d) => d.title === 'b')).to.deep.include({ score: 2, done: true });
      const bad = await refusal(() =>
        records().update(key, agentId, docId, 'documentApi', { filter: { title: 'a' }, set: { score: 'high' } }),
      );
      expect(bad.message).to.equal("set.score: 'score' must be a number");
      expect(bad.details?.field).to.equal('set.score');
      const unknown = await refusal(() =>
        records().update(key, agentId, docId, 'documentApi', { filter: { title: 'a' }, set: { colour: 'red' } }),
      );
      expect(unknown.message).to.equal("set.colour: unknown field 'colour'");
    });

    it('update refuses a set that is not an object or is empty, and setting a required field to null', async () => {
      const u = (set: unknown) =>
        refusal(() => records().update(key, agentId, docId, 'documentApi', { filter: { title: 'a' }, set }));
      for (const s of [undefined, null, 'x', [{ title: 'y' }]])
        expect((await u(s)).message).to.equal('set: must be an object of field values');
      expect((await u({})).message).to.equal('set: give at least one field');
      const nulled = await u({ title: null });
      expect(nulled.message).to.equal("set.title: 'title' is required");
      expect(nulled.details?.field).to.equal('set.title');
      const cleared = await records().update(key, agentId, docId, 'documentApi', {
        filter: { title: 'a' },
        set: { score: null },
      });
      expect(cleared.updated).to.equal(1);
      expect(
        (await records().query(key, agentId, docId, 'documentApi', { filter: { title: 'a' } })).records[0]!.score,
      ).to.equal(null);
    });

    it('an empty filter updates or deletes everything only with all: true; all must be a boolean', async () => {
      for (const op of ['update', 'delete'] as const) {
        const call = (input: Record<string, unknown>) =>
          op === 'update'
            ? records().update(key, agentId, docId, 'documentApi', { set: { done: true }, ...input })
            : records().delete(key, agentId, docId, 'documentApi', input);
        const empty = await refusal(() => call({}));
        expect(empty.message).to.equal('filter: an empty filter matches every record; send "all": true to mean that');
        expect((await refusal(() => call({ filter: {}, all: false }))).details?.field).to.equal('filter');
        expect((await refusal(() => call({ filter: { title: 'a' }, all: 'yes' }))).message).to.equal(
          'all: must be true or false',
        );
      }
      expect(await count()).to.equal(3);
      expect(
        await records().update(key, agentId, docId, 'documentApi', { set: { done: true }, all: true }),
      ).to.deep.equal({ updated: 3 });
      expect(
        await records().delete(key, agentId, docId, 'documentApi', { filter: { title: ['a', 'b'] } }),
      ).to.deep.equal({ deleted: 2 });
      expect(await records().delete(key, agentId, docId, 'documentApi', { filter: {}, all: true })).to.deep.equal({
        deleted: 1,
      });
      expect(await count()).to.equal(0);
    });
  });

  describe('who reaches which document', () => {
    it('a write checked before its document was unexposed, deleted or given new fields checks again when it runs', async () => {
      const moving = await createDoc(agentId, { name: 'Moving', kind: 'DATABASE', fields: FIELDS });
      await expose(agentId, moving, true, true);
      const countIn = async (doc: string) => (await records().query(member, agentId, doc, 'agent', {})).totalCount;

      const insertLater = await records().prepareInsert(key, agentId, moving, 'documentApi', [{ title: 'x' }]);
      const updateLater = await records().prepareUpdate(key, agentId, moving, 'documentApi', {
        filter: { title: 'x' },
        set: { score: 1 },
      });
      await gqlOk(ws.adminToken, 'mutation($a: ID!, $d: ID!) { unexposeDocument(agentId: $a, documentId: $d) }', {
        a: agentId,
        d: moving,
      });
      expect((await refusal(() => insertLater.run())).code).to.equal('NOT_FOUND');
      expect((await refusal(() => updateLater.run())).code).to.equal('NOT_FOUND');
      expect(await countIn(moving)).to.equal(0);

      await expose(agentId, moving, true, true);
      const asText = await records().prepareInsert(key, agentId, moving, 'documentApi', [{ title: 'x' }]);
      const retyped = FIELDS.map((f) => (f.name === 'title' ? { ...f, type: 'NUMBER' } : f));
      await gqlOk(
        ws.adminToken,
        'mutation($id: ID!, $i: UpdateDocumentInput!) { updateDocument(id: $id, input: $i) { id } }',
        { id: moving, i: { fields: retyped } },
      );
      expect((await refusal(() => asText.run())).message).to.equal("items.0.title: 'title' must be a number");
      expect(await countIn(moving)).to.equal(0);
      const asNumber = await records().prepareInsert(key, agentId, moving, 'documentApi', [{ title: 5 }]);
      expect((await asNumber.run()).inserted).to.equal(1);

      const deleteLater = await records().prepareDelete(key, agentId, moving, 'documentApi', { all: true });
      await gqlOk(ws.adminToken, 'mutation($id: ID!) { deleteDocument(id: $id) }', { id: moving });
      expect((await refusal(() => deleteLater.run())).code).to.equal('NOT_FOUND');
    });

    it('the Document API reaches exposed documents only, with their read and write permissions', async () => {
      expect((await refusal(() => records().query(key, agentId, hiddenDocId, 'documentApi', {}))).code).to.equal(
        'NOT_FOUND',
      );
      expect((await refusal(() => records().query(key, agentId, woDocId, 'documentApi', {}))).code).to.equal(
        'FORBIDDEN',
      );
      expect((await refusal(() => records().read(key, agentId, woDocId, 'documentApi'))).message).to.match(
        /not readable through the Document API/,
      );
      expect(
        (await refusal(() => records().insert(key, agentId, roDocId, 'documentApi', [{ title: 'x' }]))).message,
      ).to.match(/not writable through the Document API/);
      expect(
        (await refusal(() => records().delete(key, agentId, roDocId, 'documentApi', { all: true }))).code,
      ).to.equal('FORBIDDEN');
      expect(
        (
          await refusal(() =>
            records().update(key, agentId, roDocId, 'documentApi', { all: true, set: { done: true } }),
          )
        ).code,
      ).to.equal('FORBIDDEN');
      expect((await refusal(() => records().write(key, agentId, roDocId, 'documentApi', { name: 'x' }))).code).to.equal(
        'FORBIDDEN',
      );
      expect((await records().query(key, agentId, roDocId, 'documentApi', {})).totalCount).to.equal(0);
      expect((await records().insert(key, agentId, woDocId, 'documentApi', [{ title: 'w' }])).inserted).to.equal(1);
      // Another agent's exposed document is not this agent's.
      expect((await refusal(() => records().query(key, agentId, otherDocId, 'documentApi', {}))).code).to.equal(
        'NOT_FOUND',
      );
    });

    it("the agent itself reaches all of its own documents without exposure, and no other agent's", async () => {
      expect((await records().insert(self, agentId, hiddenDocId, 'agent', [{ title: 'h' }])).inserted).to.equal(1);
      expect((await records().query(self, agentId, hiddenDocId, 'agent', {})).totalCount).to.equal(1);
      const foreign = await refusal(() => records().query(self, agentId, otherDocId, 'agent', {}));
      expect(foreign.code).to.equal('NOT_FOUND');
      const theirsFromHere = await refusal(() =>
        records().insert(self, agentId, otherDocId, 'agent', [{ title: 'x' }]),
      );
      expect(theirsFromHere.code).to.equal('NOT_FOUND');
      expect((await records().query(member, otherAgentId, otherDocId, 'agent', {})).totalCount).to.equal(0);
      const own = (await records().listDocuments(self, agentId)).map((d) => d.id);
      expect(own).to.include.members([docId, textDocId, roDocId, woDocId, hiddenDocId]);
      expect(own).to.not.include(otherDocId);
    });

    it('an agent without the Documents capability cannot use its documents as itself', async () => {
      const plain = await createAgent(ws.adminToken);
      const doc = await createDoc(plain, { name: 'D', kind: 'DATABASE', fields: FIELDS });
      const plainSelf: Principal = { kind: 'agentSelf', workspaceId: ws.workspaceId, agentId: plain };
      expect((await refusal(() => records().query(plainSelf, plain, doc, 'agent', {}))).code).to.equal('FORBIDDEN');
      expect((await refusal(() => records().listDocuments(plainSelf, plain))).code).to.equal('FORBIDDEN');
    });

    it('records exist only in DATABASE documents; TEXT documents are read and written as content', async () => {
      for (const call of [
        () => records().query(key, agentId, textDocId, 'documentApi', {}),
        () => records().insert(key, agentId, textDocId, 'documentApi', [{ title: 'x' }]),
        () => records().update(key, agentId, textDocId, 'documentApi', { all: true, set: { title: 'x' } }),
        () => records().delete(key, agentId, textDocId, 'documentApi', { all: true }),
      ]) {
        const err = await refusal(call);
        expect(err.code).to.equal('INVALID');
        expect(err.message).to.match(/is a TEXT document; records exist only in DATABASE documents/);
      }
      expect(await records().read(key, agentId, textDocId, 'documentApi')).to.deep.equal({
        id: textDocId,
        name: 'Notes',
        description: '',
        kind: 'TEXT',
        content: 'hello',
      });
      const written = await records().write(key, agentId, textDocId, 'documentApi', {
        content: 'new',
        name: '  Renamed  ',
        description: 'd',
      });
      expect(written).to.deep.include({ content: 'new', name: 'Renamed', description: 'd' });
      expect(
        (await refusal(() => records().write(key, agentId, textDocId, 'documentApi', { name: '   ' }))).details?.field,
      ).to.equal('name');
      expect(
        (await refusal(() => records().write(key, agentId, textDocId, 'documentApi', { colour: 'red' }))).code,
      ).to.equal('INVALID');
      const kept = await records().write(key, agentId, textDocId, 'documentApi', { content: 'again' });
      expect(kept).to.deep.include({ content: 'again', name: 'Renamed', description: 'd' });
    });
  });
});
