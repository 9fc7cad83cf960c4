import { expect } from 'chai';
import OpenAI from 'openai';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// Stored responses of the OpenAI-compatible API, with the official `openai` client (issue 49):
// a response belongs to the key that made it, not to its agent — another key of the same agent,
// or a workspace key, gets OpenAI's 404 `not_found` reading, deleting or continuing it (item 13);
// and a continuation stores the turns it adds and a link, not the whole conversation again (item 12).

const ADMIN_TOKEN = 'openai-callers-e2e-admin-token-0123456789';

describe('e2e: stored OpenAI responses belong to their key, and a chain stores only its new turns', function () {
  this.timeout(180_000);
  let svc: E2eService;
  let agent: string;
  let key1: string;
  let key2: string;
  let wsKey: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);
  const client = (baseURL: string, apiKey: string) => new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  const agentUrl = () => `${svc.url}/agents/${agent}/v1`;
  const newKey = async () =>
    (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "partner") { key } }', { a: agent }))
      .createAgentApiKey.key as string;
  const caught = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
  /** The bytes each stored response's context takes, by id. */
  async function storedBytes(ids: string[]): Promise<number[]> {
    const rows = await svc.service
      .db('openai_responses')
      .select('id')
      .select(svc.service.db.raw('octet_length(context::text) as n'))
      .whereIn('id', ids);
    const byId = new Map(rows.map((r: any) => [r.id, Number(r.n)]));
    return ids.map((id) => byId.get(id)!);
  }

  before(async () => {
    svc = await startE2eService('openai_callers_e2e', { adminToken: ADMIN_TOKEN });
    agent = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: {
          name: 'Shop',
          instructions: 'You are the shop assistant.',
          defaultModel: 'fake-model',
          allowWorkspaceKeys: true,
        },
      })
    ).createAgent.id;
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: OPENAI, enabled: true) { id } }', { a: agent });
    key1 = await newKey();
    key2 = await newKey();
    wsKey = (await gql('mutation { createWorkspaceApiKey(name: "clients") { key } }')).createWorkspaceApiKey.key;
  });

  after(async () => {
    await svc?.stop();
  });

  beforeEach(() => svc.fake.reset());

  it('another key of the agent, and a workspace key on either URL, get 404 not_found reading, deleting or continuing it', async () => {
    svc.fake.enqueue({ text: 'Noted: your card ends in 4242.' });
    const mine = await client(agentUrl(), key1).responses.create({ model: agent, input: 'My card ends in 4242.' });
    const others: [string, OpenAI][] = [
      ['another agent key', client(agentUrl(), key2)],
      ['a workspace key on the agent URL', client(agentUrl(), wsKey)],
      ['a workspace key on the workspace URL', client(`${svc.url}/v1`, wsKey)],
    ];
    for (const [who, api] of others) {
      const read = await caught(api.responses.retrieve(mine.id));
      expect(read, who).to.be.instanceOf(OpenAI.NotFoundError);
      expect(read!.code, who).to.equal('not_found');
      expect(JSON.stringify(read!.error), who).to.not.include('4242');
      const deleted = await caught(api.responses.delete(mine.id));
      expect(deleted, who).to.be.instanceOf(OpenAI.NotFoundError);
      expect(deleted!.code, who).to.equal('not_found');
      const continued = await caught(
        api.responses.create({ model: agent, input: 'What does my card end in?', previous_response_id: mine.id }),
      );
      expect(continued, who).to.be.instanceOf(OpenAI.NotFoundError);
      expect(continued!.code, who).to.equal('not_found');
      expect(continued!.param, who).to.equal('previous_response_id');
    }
    // The model was never asked on another key's behalf, and the response is still there for its own key.
    expect(svc.fake.requests).to.have.length(1);
    expect((await client(agentUrl(), key1).responses.retrieve(mine.id)).output_text).to.equal(
      'Noted: your card ends in 4242.',
    );
    svc.fake.enqueue({ text: 'It ends in 4242.' });
    await client(agentUrl(), key1).responses.create({
      model: agent,
      input: 'What does my card end in?',
      previous_response_id: mine.id,
    });
    expect(JSON.stringify(svc.fake.requests[1]!.body)).to.include('My card ends in 4242.');
    // A workspace key reads and deletes its own.
    svc.fake.enqueue({ text: 'for the workspace key' });
    const its = await client(`${svc.url}/v1`, wsKey).responses.create({ model: agent, input: 'x' });
    expect((await client(agentUrl(), wsKey).responses.retrieve(its.id)).id).to.equal(its.id);
    expect(await caught(client(agentUrl(), key1).responses.retrieve(its.id))).to.be.instanceOf(OpenAI.NotFoundError);
    expect((await client(`${svc.url}/v1`, wsKey).responses.delete(its.id)) as unknown).to.deep.include({
      id: its.id,
      deleted: true,
    });
  });

  it('a chain of 20 responses stores the turns each adds, and the last one still gives the model the whole conversation', async () => {
    const api = client(agentUrl(), key1);
    const turn = (i: number) => `Fact ${i}: ${'x'.repeat(1000)}`;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      svc.fake.enqueue({ text: `Answer ${i}` });
      const r = await api.responses.create({
        model: agent,
        input: turn(i),
        ...(ids.length ? { previous_response_id: ids[ids.length - 1]! } : {}),
      });
      ids.push(r.id);
    }
    const bytes = await storedBytes(ids);
    // Each response stores about one turn's worth (1,000 characters and its answer), however long the chain.
    for (const n of bytes) expect(n).to.be.within(1000, 1200);
    expect(Math.max(...bytes) - Math.min(...bytes)).to.be.lessThan(50);
    // The last request carried every earlier turn and answer, in order.
    const sent = JSON.stringify(svc.fake.requests[19]!.body);
    let at = -1;
    for (let i = 0; i < 19; i++) {
      expect(sent.indexOf(`Fact ${i}:`), `turn ${i}`).to.be.greaterThan(at);
      at = sent.indexOf(`Fact ${i}:`);
      expect(sent.indexOf(`Answer ${i}`), `answer ${i}`).to.be.greaterThan(at);
    }
    expect(sent.indexOf('Fact 19:')).to.be.greaterThan(at);
    // Continuing from the middle takes the chain up to there only.
    svc.fake.enqueue({ text: 'branch' });
    await api.responses.create({ model: agent, input: 'Branch here', previous_response_id: ids[4]! });
    const branch = JSON.stringify(svc.fake.requests[20]!.body);
    expect(branch).to.include('Fact 4:');
    expect(branch).to.not.include('Fact 5:');
  });

  it('a 100-byte continuation of a conversation near its 2,000,000-character bound stores under 1 KB', async () => {
    const api = client(agentUrl(), key1);
    const big = 'word '.repeat(180_000); // 900,000 characters
    svc.fake.enqueue({ text: 'noted' }, { text: 'noted again' }, { text: 'short answer' });
    const first = await api.responses.create({ model: agent, input: big });
    const second = await api.responses.create({ model: agent, input: big, previous_response_id: first.id });
    const third = await api.responses.create({ model: agent, input: 'x'.repeat(100), previous_response_id: second.id });
    const [b1, b2, b3] = await storedBytes([first.id, second.id, third.id]);
    expect(b1).to.be.within(900_000, 901_000);
    expect(b2).to.be.within(900_000, 901_000);
    expect(b3).to.be.lessThan(1024);
    // The model still got both big turns with the small one.
    expect(JSON.stringify(svc.fake.requests[2]!.body).length).to.be.greaterThan(1_800_000);
  });
});
