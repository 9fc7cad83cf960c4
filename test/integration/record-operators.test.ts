import { expect } from 'chai';
import { validateFilter, validateSort } from '../../src/domain/documents/record-filter.js';
import { encodeCursor } from '../../src/domain/documents/record-cursor.js';
import type { FieldDef } from '../../src/domain/documents/document.entities.js';
import type { Principal } from '../../src/domain/principal.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { refusal } from '../helpers/runtime.js';

// Record queries beyond equality: the comparison operators, sorting and cursor paging, through the
// domain service every surface uses (Document API, script host API, Documents capability), against
// the real database (the embedded one, and PostgreSQL in CI).

const FIELDS = [
  { name: 'title', type: 'STRING', required: true },
  { name: 'score', type: 'NUMBER' },
  { name: 'done', type: 'BOOLEAN' },
  { name: 'due', type: 'DATETIME' },
  { name: 'meta', type: 'JSON' },
];
const VALID = 'valid operators: eq, ne, gt, gte, lt, lte, in, contains, exists';

type Rec = { id: string } & Record<string, unknown>;
const titles = (r: { records: Rec[] }) => r.records.map((x) => x.title);

describe('record queries: operators, sort and cursor', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let agentId: string;
  let docId: string;
  let key: Principal;
  const records = () => h().service.services.records;
  const query = (input: Record<string, unknown>) =>
    records().query(key, agentId, docId, 'documentApi', input) as Promise<{
      records: Rec[];
      totalCount: number;
      nextCursor: string | null;
    }>;
  const refused = async (input: Record<string, unknown>) => (await refusal(() => query(input))).message;

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken);
    docId = (
      await gqlOk(
        ws.adminToken,
        'mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }',
        { a: agentId, i: { name: 'Tasks', kind: 'DATABASE', fields: FIELDS } },
      )
    ).createDocument.id as string;
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!, $d: ID!) { exposeDocument(agentId: $a, documentId: $d, read: true, write: true) { id } }',
      { a: agentId, d: docId },
    );
    key = { kind: 'agentKey', keyId: 'key_test', workspaceId: ws.workspaceId, agentId };
  });

  beforeEach(async () => {
    await records().delete(key, agentId, docId, 'documentApi', { all: true });
    await records().insert(key, agentId, docId, 'documentApi', [
      { title: 'alpha', score: 7, done: true, due: '2026-11-01', meta: { tier: 'gold', n: 1 } },
      { title: 'Beta invoice', score: 7.5, done: false, due: '2026-11-01T09:30:00+02:00', meta: { tier: 'silver' } },
      { title: 'gamma', score: -2, done: false, due: '2026-11-02T00:00:00Z' },
      { title: 'delta', score: 100, due: '2026-10-31T23:59:59' },
      { title: 'epsilon', score: null, done: true, meta: null },
      { title: 'Zeta INVOICE', score: 7 },
    ]);
  });

  describe('operators', () => {
    it('gt, gte, lt and lte compare numbers by value, never as text', async () => {
      expect(titles(await query({ filter: { score: { gt: 7 } } }))).to.deep.equal(['Beta invoice', 'delta']);
      expect(titles(await query({ filter: { score: { gte: 7 } } }))).to.deep.equal([
        'alpha',
        'Beta invoice',
        'delta',
        'Zeta INVOICE',
      ]);
      expect(titles(await query({ filter: { score: { lt: 7 } } }))).to.deep.equal(['gamma']);
      expect(titles(await query({ filter: { score: { lte: 7 } } }))).to.deep.equal(['alpha', 'gamma', 'Zeta INVOICE']);
      // 100 > 7.5 as numbers, though "100" < "7.5" as text.
      expect(titles(await query({ filter: { score: { gt: 10 } } }))).to.deep.equal(['delta']);
    });

    it('several operators on one field and conditions on several fields must all hold', async () => {
      expect(titles(await query({ filter: { score: { gte: 0, lt: 8 } } }))).to.deep.equal([
        'alpha',
        'Beta invoice',
        'Zeta INVOICE',
      ]);
      expect(titles(await query({ filter: { score: { gte: 0, lt: 8 }, done: false } }))).to.deep.equal([
        'Beta invoice',
      ]);
      expect(
        titles(await query({ filter: { score: { gt: 0 }, title: { contains: 'invoice' }, done: { ne: true } } })),
      ).to.deep.equal(['Beta invoice', 'Zeta INVOICE']);
      const r = await query({ filter: { score: { gt: 0 } }, limit: 1 });
      expect(r.totalCount).to.equal(4);
    });

    it('date-times compare as instants: a date is midnight UTC, a value without a zone is UTC, offsets are applied', async () => {
      // alpha 2026-11-01T00:00Z, Beta 2026-11-01T07:30Z, gamma 2026-11-02T00:00Z, delta 2026-10-31T23:59:59Z
      expect(titles(await query({ filter: { due: { gte: '2026-11-01' } } }))).to.deep.equal([
        'alpha',
        'Beta invoice',
        'gamma',
      ]);
      expect(titles(await query({ filter: { due: { gt: '2026-11-01T07:30:00Z' } } }))).to.deep.equal(['gamma']);
      expect(
        titles(await query({ filter: { due: { gte: '2026-11-01T09:30+02:00', lt: '2026-11-02' } } })),
      ).to.deep.equal(['Beta invoice']);
      expect(titles(await query({ filter: { due: { lt: '2026-11-01T00:00:00+00:00' } } }))).to.deep.equal(['delta']);
    });

    it('strings compare in code-point order; contains finds text ignoring case', async () => {
      // Upper case sorts before lower case in code-point order: 'Beta…' and 'Zeta…' are < 'a'.
      expect(titles(await query({ filter: { title: { lt: 'a' } } }))).to.deep.equal(['Beta invoice', 'Zeta INVOICE']);
      expect(titles(await query({ filter: { title: { gte: 'delta', lt: 'f' } } }))).to.deep.equal(['delta', 'epsilon']);
      expect(titles(await query({ filter: { title: { contains: 'InVoIcE' } } }))).to.deep.equal([
        'Beta invoice',
        'Zeta INVOICE',
      ]);
      // A contains text is matched literally: % and _ are not wildcards.
      expect((await query({ filter: { title: { contains: '%' } } })).totalCount).to.equal(0);
      expect((await query({ filter: { title: { contains: 'a_p' } } })).totalCount).to.equal(0);
    });

    it('ne also matches records where the field is missing or null; exists tells the two apart', async () => {
      expect(titles(await query({ filter: { done: { ne: true } } }))).to.deep.equal([
        'Beta invoice',
        'gamma',
        'delta',
        'Zeta INVOICE',
      ]);
      expect(titles(await query({ filter: { score: { exists: false } } }))).to.deep.equal(['epsilon']);
      expect(titles(await query({ filter: { meta: { exists: true } } }))).to.deep.equal(['alpha', 'Beta invoice']);
      expect(titles(await query({ filter: { due: { exists: false }, done: { exists: true } } }))).to.deep.equal([
        'epsilon',
      ]);
    });

    it('eq and in are the same as a value and a list; id takes eq, ne and in', async () => {
      expect(titles(await query({ filter: { score: { eq: 7 } } }))).to.deep.equal(
        titles(await query({ filter: { score: 7 } })),
      );
      expect(titles(await query({ filter: { title: { in: ['gamma', 'delta'] } } }))).to.deep.equal(['gamma', 'delta']);
      const all = (await query({})).records;
      expect(titles(await query({ filter: { id: { ne: all[0]!.id } } }))).to.have.length(5);
      expect(titles(await query({ filter: { id: { in: [all[1]!.id, all[2]!.id] } } }))).to.deep.equal([
        'Beta invoice',
        'gamma',
      ]);
    });

    it('a JSON field matched with an object still means "contains these keys"; an object of operators is read as operators', async () => {
      expect(titles(await query({ filter: { meta: { tier: 'gold' } } }))).to.deep.equal(['alpha']);
      expect(titles(await query({ filter: { meta: { eq: { tier: 'silver' } } } }))).to.deep.equal(['Beta invoice']);
      expect(titles(await query({ filter: { meta: { ne: { tier: 'gold' } } } }))).to.deep.equal([
        'Beta invoice',
        'gamma',
        'delta',
        'epsilon',
        'Zeta INVOICE',
      ]);
    });

    it('update and delete take the same operators', async () => {
      expect(
        await records().update(key, agentId, docId, 'documentApi', {
          filter: { score: { lt: 0 } },
          set: { done: true },
        }),
      ).to.deep.equal({ updated: 1 });
      expect(titles(await query({ filter: { done: true } }))).to.deep.equal(['alpha', 'gamma', 'epsilon']);
      expect(
        await records().delete(key, agentId, docId, 'documentApi', { filter: { score: { gte: 7, lte: 7.5 } } }),
      ).to.deep.equal({ deleted: 3 });
      expect(titles(await query({}))).to.deep.equal(['gamma', 'delta', 'epsilon']);
    });

    it('a stored value that no longer fits its field (an impossible date written before the check) is "no value", not a failed query', async () => {
      // Written under the repository, as records stored by an earlier version could be.
      await h().service.store.repos.records.insertMany(
        docId,
        [{ id: 'rec_old', data: { title: 'old', due: '2026-02-30', score: 'ten' } }],
        new Date(),
      );
      expect(titles(await query({ filter: { due: { gt: '2000-01-01' } } }))).to.not.include('old');
      expect(titles(await query({ filter: { score: { gt: 0 } } }))).to.not.include('old');
      expect(titles(await query({ filter: { due: { exists: true } } }))).to.include('old');
      expect(titles(await query({ sort: { field: 'due' } })).at(-1)).to.be.oneOf(['old', 'epsilon', 'Zeta INVOICE']);
    });
  });

  describe('refusals name the problem', () => {
    it('an unknown operator is a 400 naming it and listing the valid ones', async () => {
      expect(await refused({ filter: { score: { greater: 7 } } })).to.equal(
        `filter.score.greater: unknown operator 'greater' (${VALID})`,
      );
      expect(await refused({ filter: { score: { $gt: 7 } } })).to.equal(
        `filter.score.$gt: unknown operator '$gt' — write 'gt' without '$' (${VALID})`,
      );
      expect(await refused({ filter: { meta: { gt: 1, tier: 'gold' } } })).to.match(
        /^filter\.meta\.tier: unknown operator 'tier' .*write \{"eq": \{…\}\}$/,
      );
      const err = await refusal(() => query({ filter: { score: { greater: 7 } } }));
      expect([err.code, err.details?.field]).to.deep.equal(['INVALID', 'filter.score.greater']);
    });

    it('an operator that does not apply to the field type, or an operand of the wrong type, is refused', async () => {
      expect(await refused({ filter: { done: { gt: false } } })).to.equal(
        "filter.done.gt: 'gt' does not apply to boolean field 'done' (operators for it: eq, ne, in, exists)",
      );
      expect(await refused({ filter: { score: { contains: '7' } } })).to.match(
        /^filter\.score\.contains: 'contains' does not apply to number field 'score'/,
      );
      expect(await refused({ filter: { id: { exists: true } } })).to.match(
        /^filter\.id\.exists: 'exists' does not apply to the id field 'id'/,
      );
      expect(await refused({ filter: { score: { gt: 'seven' } } })).to.equal(
        "filter.score.gt: 'score' must be a number",
      );
      expect(await refused({ filter: { due: { lt: '2026-02-30' } } })).to.equal(
        "filter.due.lt: 'due' must be an ISO 8601 date or date-time string",
      );
      expect(await refused({ filter: { score: { gt: [1, 2] } } })).to.equal(
        "filter.score.gt: 'gt' takes one number value",
      );
      expect(await refused({ filter: { score: { in: 7 } } })).to.equal("filter.score.in: 'in' takes a list of values");
      expect(await refused({ filter: { title: { contains: '' } } })).to.equal(
        "filter.title.contains: 'contains' takes a text of 1 to 1000 characters",
      );
      expect(await refused({ filter: { title: { exists: 'yes' } } })).to.equal(
        "filter.title.exists: 'exists' takes true or false",
      );
      expect(await refused({ filter: { score: { ne: null } } })).to.match(
        /^filter\.score\.ne: null is not a value to compare with; use \{"exists": false\}/,
      );
      expect(await refused({ filter: { score: {} } })).to.match(/^filter\.score: give at least one operator/);
    });

    it('a sort naming an unknown or JSON field, a bad direction or an unknown option is refused', async () => {
      expect(await refused({ sort: { field: 'colour' } })).to.equal("sort.field: unknown field 'colour'");
      expect(await refused({ sort: [{ field: 'title' }, { field: 'meta' }] })).to.match(
        /^sort\.1\.field: JSON field 'meta' cannot be sorted/,
      );
      expect(await refused({ sort: { field: 'title', direction: 'up' } })).to.equal(
        'sort.direction: must be "asc" or "desc"',
      );
      expect(await refused({ sort: { field: 'title', nulls: 'first' } })).to.equal(
        "sort.nulls: unknown sort option 'nulls' (options: field, direction)",
      );
      expect(await refused({ sort: [] })).to.equal('sort: give 1 to 3 sort keys');
      expect(await refused({ sort: 'title' })).to.match(/^sort: a sort key is/);
    });
  });

  describe('sort', () => {
    it('orders by one key either way, missing values last in both directions, ties in insertion order', async () => {
      expect(titles(await query({ sort: { field: 'score' } }))).to.deep.equal([
        'gamma',
        'alpha',
        'Zeta INVOICE',
        'Beta invoice',
        'delta',
        'epsilon',
      ]);
      expect(titles(await query({ sort: { field: 'score', direction: 'desc' } }))).to.deep.equal([
        'delta',
        'Beta invoice',
        'alpha',
        'Zeta INVOICE',
        'gamma',
        'epsilon',
      ]);
      expect(titles(await query({ sort: { field: 'due' } }))).to.deep.equal([
        'delta',
        'alpha',
        'Beta invoice',
        'gamma',
        'epsilon',
        'Zeta INVOICE',
      ]);
      expect(titles(await query({ sort: { field: 'title' } }))).to.deep.equal([
        'Beta invoice',
        'Zeta INVOICE',
        'alpha',
        'delta',
        'epsilon',
        'gamma',
      ]);
    });

    it('orders by several keys, each with its direction, after filtering', async () => {
      const r = await query({
        filter: { score: { exists: true } },
        sort: [
          { field: 'done', direction: 'desc' },
          { field: 'score', direction: 'desc' },
        ],
      });
      // done: true first (alpha), then false (Beta 7.5, gamma -2), then missing (delta 100, Zeta 7).
      expect(titles(r)).to.deep.equal(['alpha', 'Beta invoice', 'gamma', 'delta', 'Zeta INVOICE']);
    });
  });

  describe('cursor', () => {
    it('pages through a sorted result with nextCursor, null on the last page, every record once', async () => {
      const seen: unknown[] = [];
      let cursor: string | null | undefined;
      let pages = 0;
      do {
        const r = await query({
          sort: [{ field: 'score', direction: 'desc' }],
          limit: 2,
          ...(cursor ? { cursor } : {}),
        });
        expect(r.totalCount).to.equal(6);
        seen.push(...titles(r));
        cursor = r.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(['delta', 'Beta invoice', 'alpha', 'Zeta INVOICE', 'gamma', 'epsilon']);
    });

    it('pages by every sortable type the same as one page sorted at once', async () => {
      for (const sort of [
        { field: 'due' },
        { field: 'due', direction: 'desc' },
        { field: 'done' },
        [{ field: 'done', direction: 'desc' }, { field: 'title' }],
      ]) {
        const whole = titles(await query({ sort }));
        const paged: unknown[] = [];
        let cursor: string | null = null;
        do {
          const r: Awaited<ReturnType<typeof query>> = await query({ sort, limit: 1, ...(cursor ? { cursor } : {}) });
          paged.push(...titles(r));
          cursor = r.nextCursor;
        } while (cursor && paged.length < 10);
        expect(paged, JSON.stringify(sort)).to.deep.equal(whole);
      }
    });

    it('a page after a cursor does not shift when records are added before it (as an offset would)', async () => {
      const first = await query({ sort: { field: 'title' }, limit: 3 });
      expect(titles(first)).to.deep.equal(['Beta invoice', 'Zeta INVOICE', 'alpha']);
      await records().insert(key, agentId, docId, 'documentApi', [{ title: 'Aardvark' }, { title: 'aardvark' }]);
      const next = await query({ sort: { field: 'title' }, limit: 3, cursor: first.nextCursor });
      expect(titles(next)).to.deep.equal(['delta', 'epsilon', 'gamma']);
    });

    it('pages without a sort in insertion order, and with the same filter only', async () => {
      const first = await query({ filter: { score: { gt: 0 } }, limit: 2 });
      const next = await query({ filter: { score: { gt: 0 } }, limit: 2, cursor: first.nextCursor });
      expect([...titles(first), ...titles(next)]).to.deep.equal(['alpha', 'Beta invoice', 'delta', 'Zeta INVOICE']);
      expect(next.nextCursor).to.equal(null);
      expect(await refused({ filter: { score: { gt: 1 } }, limit: 2, cursor: first.nextCursor })).to.match(
        /^cursor: belongs to a query with another filter or sort/,
      );
      expect(
        await refused({ filter: { score: { gt: 0 } }, sort: { field: 'title' }, cursor: first.nextCursor }),
      ).to.match(/^cursor: belongs to a query with another filter or sort/);
    });

    it('pages by a string field whose values are far longer than the part that sorts, with cursors the service takes back', async () => {
      await records().delete(key, agentId, docId, 'documentApi', { all: true });
      // 100,000 characters each, first by their first 1,000 characters; two share those and keep insertion order.
      const long = (head: string, tail: string) => head.repeat(1000) + tail.repeat(99_000);
      await records().insert(key, agentId, docId, 'documentApi', [
        { title: long('c', 'a'), score: 1 },
        { title: long('a', '\u0001'), score: 2 },
        { title: long('c', '"'), score: 3 },
        { title: long('b', 'z'), score: 4 },
      ]);
      const scores: unknown[] = [];
      let cursor: string | null = null;
      do {
        const r: Awaited<ReturnType<typeof query>> = await query({
          sort: { field: 'title' },
          limit: 1,
          ...(cursor ? { cursor } : {}),
        });
        scores.push(...r.records.map((x) => x.score));
        cursor = r.nextCursor;
        if (cursor) expect(cursor.length).to.be.below(32_000);
      } while (cursor && scores.length < 10);
      expect(scores).to.deep.equal([2, 4, 1, 3]);
    });

    it('a cursor that is not one, or together with an offset, is refused', async () => {
      const first = await query({ limit: 1 });
      expect(await refused({ cursor: 'not-a-cursor' })).to.equal('cursor: must be the nextCursor of a previous page');
      expect(await refused({ cursor: 42 })).to.equal('cursor: must be the nextCursor of a previous page');
      // A cursor of this very query whose sort value was edited is refused before it reaches the database.
      const sort = validateSort(FIELDS as FieldDef[], { field: 'score' });
      const forged = encodeCursor(
        { keys: ["1'; drop table x; --"], seq: '1' },
        validateFilter(FIELDS as FieldDef[], {}),
        sort,
      );
      expect(await refused({ sort: { field: 'score' }, cursor: forged })).to.equal(
        'cursor: must be the nextCursor of a previous page',
      );
      expect(await refused({ cursor: first.nextCursor, offset: 1 })).to.equal(
        'cursor: give either a cursor or an offset, not both',
      );
      // An offset of 0 or null, or a null cursor, is the same as not giving it.
      expect(titles(await query({ cursor: first.nextCursor, offset: null })).length).to.equal(5);
      expect(titles(await query({ cursor: null, offset: 1 })).length).to.equal(5);
      expect(titles(await query({ cursor: null })).length).to.equal(6);
    });
  });
});
