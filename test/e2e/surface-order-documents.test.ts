import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Admission } from '../../src/domain/admission/admission.service.js';
import { databaseEnv, graphqlClient } from '../helpers/process.js';
import { startSurfaceService, type InProcessService } from '../helpers/surface-service.js';
import { call as send, type Reply } from '../helpers/surface-calls.js';
import { seedDataDir } from '../helpers/embedded-template.js';

// DESIGN §6, the order of checks on the Document API: document (404) → permission (403) → input
// (400) → guardrails (400) → admission (429). Every refusal that needs no work comes before
// admission, so an agent at a limit still hears "no such document" or "bad filter", and a refused
// request takes no concurrency slot. The service is the one `npm start` builds, in this process;
// no model is called (every request here is a Document API call).

const ADMIN_TOKEN = 'surface-order-documents-admin-01'; // 32 characters
const NO_MODEL = 'http://127.0.0.1:9/v1';

const FIELDS = [
  { name: 'title', type: 'STRING', required: true },
  { name: 'score', type: 'NUMBER' },
];

describe('e2e: Document API refusals come before admission', function () {
  this.timeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-order-docs-'));
  let svc: InProcessService;
  let database: Awaited<ReturnType<typeof databaseEnv>> | undefined;
  const gql = graphqlClient(() => svc.url, ADMIN_TOKEN);
  const call = (method: string, p: string, opts: Omit<Parameters<typeof send>[2], 'baseUrl'> = {}) =>
    send(method, p, { ...opts, baseUrl: svc.url });
  const docPath = (agent: string, d: string, op = '') => `/agents/${agent}/documents/${d}${op ? `/data/${op}` : ''}`;

  function expectError(r: Reply, status: number, message?: RegExp): void {
    expect(r.status, r.text).to.equal(status);
    expect(r.json?.error, r.text).to.be.a('string').and.not.equal('');
    if (message) expect(r.json.error).to.match(message);
  }

  /**
   * An agent with a key, a database exposed read+write, one exposed read-only, one hidden, a wide
   * one of 80 number fields (f0…f79) and a TEXT document.
   */
  async function setUpAgent(name: string) {
    const id = (await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', { i: { name } }))
      .createAgent.id as string;
    const key = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: id }))
      .createAgentApiKey.key as string;
    const doc = async (input: Record<string, unknown>, exposure?: [boolean, boolean]) => {
      const d = (
        await gql('mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }', {
          a: id,
          i: input,
        })
      ).createDocument.id as string;
      if (exposure) {
        await gql(
          'mutation($a: ID!, $d: ID!, $r: Boolean, $w: Boolean) { exposeDocument(agentId: $a, documentId: $d, read: $r, write: $w) { id } }',
          { a: id, d, r: exposure[0], w: exposure[1] },
        );
      }
      return d;
    };
    const docs = {
      tasks: await doc({ name: 'Tasks', kind: 'DATABASE', fields: FIELDS }, [true, true]),
      readOnly: await doc({ name: 'Read only', kind: 'DATABASE', fields: FIELDS }, [true, false]),
      hidden: await doc({ name: 'Hidden', kind: 'DATABASE', fields: FIELDS }),
      wide: await doc(
        {
          name: 'Wide',
          kind: 'DATABASE',
          fields: Array.from({ length: 80 }, (_, i) => ({ name: `f${i}`, type: 'NUMBER' })),
        },
        [true, true],
      ),
      notes: await doc({ name: 'Notes', kind: 'TEXT', content: 'hello' }, [true, true]),
    };
    const seeded = await call('POST', docPath(id, docs.tasks, 'insert'), {
      key,
      json: { items: [{ title: 'seed', score: 1 }] },
    });
    expect(seeded.status, seeded.text).to.equal(200);
    await gql(
      'mutation($a: ID!) { setGuardrails(agentId: $a, input: { blockedInputPatterns: ["forbidden[- ]word"] }) { id } }',
      { a: id },
    );
    return { id, key, docs };
  }

  /** 70 fields × 1,000 values: over PostgreSQL's 65,535 bind parameters before filters were bounded. */
  const hugeFilter = () =>
    Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`f${i}`, Array.from({ length: 1000 }, (_, j) => j)]));

  /**
   * Requests that must be refused with their own status whatever the agent's limits, each with the
   * reason it is refused. None of them may reach admission.
   */
  function refusals(a: Awaited<ReturnType<typeof setUpAgent>>): [string, () => Promise<Reply>, number, RegExp][] {
    const post = (d: string, op: string, json: unknown) => () =>
      call('POST', docPath(a.id, d, op), { key: a.key, json });
    return [
      ['GET of a missing document', () => call('GET', docPath(a.id, 'doc_missing'), { key: a.key }), 404, /not found/i],
      [
        'query of a missing document, with a bad filter too',
        post('doc_missing', 'query', { filter: { colour: 'red' } }),
        404,
        /not found/i,
      ],
      [
        'query of a document that is not exposed',
        post(a.docs.hidden, 'query', { filter: { title: 'x' } }),
        404,
        /not found/i,
      ],
      [
        'insert into a read-only exposure',
        post(a.docs.readOnly, 'insert', { items: [{ title: 'x' }] }),
        403,
        /not writable/,
      ],
      ['query of a TEXT document', post(a.docs.notes, 'query', {}), 400, /TEXT document/],
      ['insert into a TEXT document', post(a.docs.notes, 'insert', { items: [{ title: 'x' }] }), 400, /TEXT document/],
      ['a malformed body', post(a.docs.tasks, 'query', { filter: 'everything' }), 400, /filter/],
      [
        'a filter naming an unknown field',
        post(a.docs.tasks, 'query', { filter: { colour: 'red' } }),
        400,
        /unknown field 'colour'/,
      ],
      [
        'a filter with an unknown operator',
        post(a.docs.tasks, 'query', { filter: { score: { greater: 7 } } }),
        400,
        /unknown operator 'greater' \(valid operators: eq, ne, gt, gte, lt, lte, in, contains, exists\)/,
      ],
      [
        'a sort by an unknown field',
        post(a.docs.tasks, 'query', { sort: { field: 'colour' } }),
        400,
        /sort\.field: unknown field 'colour'/,
      ],
      [
        'a cursor that is not one',
        post(a.docs.tasks, 'query', { cursor: 'page-2' }),
        400,
        /cursor: must be the nextCursor/,
      ],
      [
        'a filter of 70 fields × 1,000 values',
        post(a.docs.wide, 'query', { filter: hugeFilter() }),
        400,
        /at most 20 fields/,
      ],
      [
        'an item missing a required field',
        post(a.docs.tasks, 'insert', { items: [{ score: 2 }] }),
        400,
        /'title' is required/,
      ],
      [
        'an update setting an unknown field',
        post(a.docs.tasks, 'update', { filter: { title: 'seed' }, set: { colour: 'red' } }),
        400,
        /unknown field 'colour'/,
      ],
      [
        'a delete with an empty filter and no all: true',
        post(a.docs.tasks, 'delete', { filter: {} }),
        400,
        /empty filter/,
      ],
      [
        'a blocked phrase in a query',
        post(a.docs.tasks, 'query', { filter: { title: 'the forbidden word' } }),
        400,
        /./,
      ],
      [
        'a blocked phrase in an insert',
        post(a.docs.tasks, 'insert', { items: [{ title: 'a forbidden-word' }] }),
        400,
        /./,
      ],
    ];
  }

  before(async () => {
    await seedDataDir(dataDir);
    database = await databaseEnv('order_docs_e2e');
    svc = await startSurfaceService({
      dataDir,
      adminToken: ADMIN_TOKEN,
      modelUrl: NO_MODEL,
      platformOrigin: 'https://app.example.test',
      database: database.env,
    });
  });

  after(async () => {
    await svc?.stop();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('an agent at its daily credit limit: missing or unexposed documents are 404, bad input 400, blocked input 400; only a valid request is 429', async () => {
    const a = await setUpAgent('At its limit');
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: a.id });
    for (const [label, send, status, message] of refusals(a)) {
      const r = await send();
      expect(r.status, `${label}: ${r.text}`).to.equal(status);
      expectError(r, status, message);
    }
    const valid = await call('POST', docPath(a.id, a.docs.tasks, 'query'), {
      key: a.key,
      json: { filter: { title: 'seed' } },
    });
    expectError(valid, 429);
    expect(valid.json.reason).to.equal('daily_credit_limit');
  });

  it('an agent whose only concurrency slot is held: the same refusals answer 404/403/400 and take no slot', async () => {
    const a = await setUpAgent('Busy');
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, maxConcurrentRequests: 1) { id } }', { a: a.id });
    const { services } = svc.service;
    // Leases in use by runs (a lease kept for the agent's next run is not one).
    const activeSlots = async () => services.admission.leasesHeld(a.id);
    const agent = (await svc.service.store.repos.agents.get(a.id))!;
    expect(agent.maxConcurrentRequests).to.equal(1);
    let held: Admission | undefined = await services.admission.admit(agent);
    try {
      expect(await activeSlots()).to.equal(1);
      for (const [label, send, status, message] of refusals(a)) {
        const r = await send();
        expect(r.status, `${label}: ${r.text}`).to.equal(status);
        expectError(r, status, message);
        expect(await activeSlots(), label).to.equal(1);
      }
      const valid = await call('POST', docPath(a.id, a.docs.tasks, 'query'), {
        key: a.key,
        json: { filter: { title: 'seed' } },
      });
      expectError(valid, 429);
      expect(valid.json.reason).to.equal('concurrency_limit');
      await held.release();
      held = undefined;
      // With the slot free the same valid request runs, and gives its slot back.
      const ran = await call('POST', docPath(a.id, a.docs.tasks, 'query'), {
        key: a.key,
        json: { filter: { title: 'seed' } },
      });
      expect(ran.status, ran.text).to.equal(200);
      expect(ran.json.totalCount).to.equal(1);
      expect(await activeSlots()).to.equal(0);
    } finally {
      await held?.release();
    }
  });

  it('a filter of 70 fields × 1,000 values, or of 1,001 values over two fields, is a 400 naming the limit on query, update and delete; 1,000 values in all are answered', async () => {
    const a = await setUpAgent('Filters');
    for (const op of ['query', 'update', 'delete']) {
      const body = (filter: unknown, set: unknown) => (op === 'update' ? { filter, set } : { filter });
      // Before filters were bounded: 70,000 bind parameters, over PostgreSQL's 65,535, and a 500.
      const huge = await call('POST', docPath(a.id, a.docs.wide, op), {
        key: a.key,
        json: body(hugeFilter(), { f0: 3 }),
      });
      expectError(huge, 400, /^filter: at most 20 fields per filter \(this one has 70\)$/);
      const spread = {
        title: Array.from({ length: 501 }, (_, i) => `t${i}`),
        score: Array.from({ length: 500 }, (_, i) => i),
      };
      expectError(
        await call('POST', docPath(a.id, a.docs.tasks, op), { key: a.key, json: body(spread, { score: 3 }) }),
        400,
        /^filter: at most 1000 values in all, over every field \(this one has 1001\)$/,
      );
    }
    const atLimit = {
      title: Array.from({ length: 500 }, (_, i) => (i === 0 ? 'seed' : `t${i}`)),
      score: Array.from({ length: 500 }, (_, i) => i),
    };
    const r = await call('POST', docPath(a.id, a.docs.tasks, 'query'), { key: a.key, json: { filter: atLimit } });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.records.map((x: { title: string }) => x.title)).to.deep.equal(['seed']);
  });

  it('a __proto__ key in an item, a set or a filter is a 400 naming it, never silently dropped', async () => {
    const a = await setUpAgent('Prototype names');
    const proto = (json: string) => call('POST', docPath(a.id, a.docs.tasks, 'insert'), { key: a.key, raw: json });
    const item = await proto('{"items": [{"title": "x", "__proto__": {"score": 5}}]}');
    expectError(item, 400, /^items\.0\.__proto__: unknown field '__proto__'/);
    const set = await call('POST', docPath(a.id, a.docs.tasks, 'update'), {
      key: a.key,
      raw: '{"filter": {"title": "seed"}, "set": {"__proto__": 1}}',
    });
    expectError(set, 400, /^set\.__proto__: unknown field '__proto__'$/);
    // Dropped, this key would leave an empty filter: a query of every record.
    const filter = await call('POST', docPath(a.id, a.docs.tasks, 'query'), {
      key: a.key,
      raw: '{"filter": {"__proto__": "x"}}',
    });
    expectError(filter, 400, /^filter\.__proto__: unknown field '__proto__'$/);
    const all = await call('GET', `${docPath(a.id, a.docs.tasks)}?limit=10`, { key: a.key });
    expect(all.json.data.records.map((x: { title: string }) => x.title)).to.deep.equal(['seed']);
  });

  it('required fields named constructor and toString are enforced, stored and matched like any other', async () => {
    const a = await setUpAgent('Object method names');
    const d = (
      await gql('mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }', {
        a: a.id,
        i: {
          name: 'Odd names',
          kind: 'DATABASE',
          fields: [
            { name: 'constructor', type: 'STRING', required: true },
            { name: 'toString', type: 'NUMBER', required: true },
          ],
        },
      })
    ).createDocument.id as string;
    await gql(
      'mutation($a: ID!, $d: ID!) { exposeDocument(agentId: $a, documentId: $d, read: true, write: true) { id } }',
      { a: a.id, d },
    );
    const insert = (items: unknown[]) => call('POST', docPath(a.id, d, 'insert'), { key: a.key, json: { items } });
    expectError(await insert([{ toString: 1 }]), 400, /^items\.0\.constructor: 'constructor' is required$/);
    expectError(await insert([{ constructor: 'c' }]), 400, /^items\.0\.toString: 'toString' is required$/);
    const ok = await insert([{ constructor: 'c', toString: 2 }]);
    expect(ok.status, ok.text).to.equal(200);
    const found = await call('POST', docPath(a.id, d, 'query'), { key: a.key, json: { filter: { constructor: 'c' } } });
    expect(found.json.records.map(({ id: _id, ...rest }: Record<string, unknown>) => rest)).to.deep.equal([
      { constructor: 'c', toString: 2 },
    ]);
  });
});
