import { expect } from 'chai';
import { newId } from '../../src/domain/ids.js';
import {
  UNCHANNELLED,
  type Message,
  type MessageChannel,
  type MessageDirection,
} from '../../src/domain/messages/message.entities.js';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// Agent.messages: both directions of an agent's email and SMS messages, newest first, paged, with
// the Workspace API's filters (direction, channel, since/until strictly) and an exact totalCount
// under each; hostile arguments are BAD_USER_INPUT (or GraphQL's own validation), never INTERNAL.

const DAY = 86_400_000;
const BASE = Date.UTC(2026, 9, 1);

interface Seed {
  direction: MessageDirection;
  channel: MessageChannel;
  sentAt: Date;
}

const PAGE = `query($id: ID!, $page: Int, $pageSize: Int, $direction: MessageDirection, $channel: MessageChannel, $since: DateTimeISO, $until: DateTimeISO) {
  agent(id: $id) { messages(page: $page, pageSize: $pageSize, direction: $direction, channel: $channel, since: $since, until: $until) {
    nodes { id direction channel sentAt } totalCount page pageSize } } }`;

describe('GraphQL Agent.messages: paging, filters with exact counts, hostile arguments', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let agentId: string;
  const seeds: (Seed & { id: string })[] = [];

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken, { name: 'Messages' });
    const { repos } = h().service.store;
    // 30 messages over five days, some at midnight and a millisecond either side of it, where the
    // per-day counts behind totalCount would be off by one if the edges were wrong.
    for (let i = 0; i < 30; i++) {
      const offset = [0, -1, 1, 3_600_000, 43_200_000][i % 5]!;
      const seed: Seed = {
        direction: i % 3 === 0 ? 'outbound' : 'inbound',
        channel: i % 2 === 0 ? 'email' : 'sms',
        sentAt: new Date(BASE + (i % 6) * DAY + offset + i),
      };
      const id = newId('msg');
      const m: Message = {
        id,
        workspaceId: ws.workspaceId,
        agentId,
        ...seed,
        from: `from${i}@example.com`,
        to: `to${i}@example.com`,
        subject: `Subject ${i}`,
        body: `Body ${i}`,
        createdAt: new Date(),
        ...UNCHANNELLED,
      };
      await repos.messages.insert(m);
      seeds.push({ id, ...seed });
    }
  });

  const list = (vars: Record<string, unknown>) => gql(ws.adminToken, PAGE, { id: agentId, ...vars });
  const page = async (vars: Record<string, unknown>) => {
    const r = await list(vars);
    if (r.errors) throw new Error(JSON.stringify(r.errors));
    return r.data.agent.messages as {
      nodes: { id: string; direction: string; channel: string; sentAt: string }[];
      totalCount: number;
      page: number;
      pageSize: number;
    };
  };
  /** The seeds a filter keeps, newest first (sentAt, then id), as the list orders them. */
  const expected = (f: { direction?: MessageDirection; channel?: MessageChannel; since?: Date; until?: Date }) =>
    seeds
      .filter((s) => (!f.direction || s.direction === f.direction) && (!f.channel || s.channel === f.channel))
      .filter((s) => (!f.since || s.sentAt > f.since) && (!f.until || s.sentAt < f.until))
      .sort((a, b) => b.sentAt.getTime() - a.sentAt.getTime() || (a.id < b.id ? 1 : -1))
      .map((s) => s.id);

  it('lists both directions newest first with the channel fields of a channel message', async () => {
    const recorded = await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { recordMessage(agentId: $id, input: {direction: INBOUND, channel: SMS, from: "+14155550100", to: "+14155550111", body: "hi", sentAt: "2020-01-01T00:00:00Z"}) { id status attempts threadId } }`,
      { id: agentId },
    );
    // Recorded by a connector: no channel, no status, no attempts.
    expect(recorded.recordMessage).to.include({ status: null, attempts: 0, threadId: null });
    const address = `agent-${newId('a').toLowerCase()}@mail.test`;
    const added = await gqlOk(
      ws.adminToken,
      `mutation($id: ID!, $address: String!) { addChannel(agentId: $id, input: {kind: EMAIL, address: $address, handler: {prompt: "Answer"}}) { id } }`,
      { id: agentId, address },
    );
    const channelId: string = added.addChannel.id;
    const stored: Message = {
      id: newId('msg'),
      workspaceId: ws.workspaceId,
      agentId,
      direction: 'outbound',
      channel: 'email',
      from: 'agent@mail.test',
      to: 'sender@example.com',
      subject: 'Re: hello',
      body: '<b>not HTML</b>',
      sentAt: new Date('2019-06-01T00:00:00Z'),
      createdAt: new Date(),
      ...UNCHANNELLED,
      channelId,
      threadId: 'thr_1',
      messageId: '<out@mail.test>',
      inReplyTo: '<in@example.com>',
      status: 'failed',
      attempts: 3,
      failures: 3,
      lastError: '550 mailbox unavailable',
      runId: 'run_1',
      provider: { attempts: [] },
    };
    await h().service.store.repos.messages.insert(stored);
    try {
      const all = await page({ pageSize: 200 });
      expect(all.totalCount).to.equal(32);
      expect(all.nodes.map((n) => n.id)).to.deep.equal([...expected({}), recorded.recordMessage.id, stored.id]);
      expect(new Set(all.nodes.map((n) => n.direction))).to.deep.equal(new Set(['INBOUND', 'OUTBOUND']));
      const r = await gqlOk(
        ws.adminToken,
        `query($id: ID!) { agent(id: $id) { messages(until: "2019-12-31T00:00:00Z") { totalCount nodes {
          id agentId direction channel from to subject body sentAt channelId threadId messageId inReplyTo status attempts failures lastError runId } } } }`,
        { id: agentId },
      );
      expect(r.agent.messages.totalCount).to.equal(1);
      expect(r.agent.messages.nodes[0]).to.deep.equal({
        id: stored.id,
        agentId,
        direction: 'OUTBOUND',
        channel: 'EMAIL',
        from: 'agent@mail.test',
        to: 'sender@example.com',
        subject: 'Re: hello',
        body: '<b>not HTML</b>',
        sentAt: '2019-06-01T00:00:00.000Z',
        channelId,
        threadId: 'thr_1',
        messageId: '<out@mail.test>',
        inReplyTo: '<in@example.com>',
        status: 'FAILED',
        attempts: 3,
        failures: 3,
        lastError: '550 mailbox unavailable',
        runId: 'run_1',
      });
    } finally {
      await h().db('messages').whereIn('id', [stored.id, recorded.recordMessage.id]).delete();
    }
  });

  it('pages through the list: each page in order, the total on every page, a page past the end empty', async () => {
    const all = expected({});
    const seen: string[] = [];
    for (let p = 1; p <= 4; p++) {
      const r = await page({ page: p, pageSize: 8 });
      expect(r).to.include({ totalCount: 30, page: p, pageSize: 8 });
      seen.push(...r.nodes.map((n) => n.id));
    }
    expect(seen).to.deep.equal(all);
    expect(await page({ page: 5, pageSize: 8 })).to.deep.equal({ nodes: [], totalCount: 30, page: 5, pageSize: 8 });
    const defaults = await page({});
    expect(defaults).to.include({ page: 1, pageSize: 50, totalCount: 30 });
  });

  it('gives the exact totalCount and the right messages under every filter and combination', async () => {
    const instants = [
      undefined,
      new Date(BASE),
      new Date(BASE + DAY - 1),
      new Date(BASE + 2 * DAY),
      new Date(BASE + 2 * DAY + 1),
      new Date(BASE + 4 * DAY + 3_600_000 + 3),
    ];
    let checked = 0;
    for (const direction of [undefined, 'inbound', 'outbound'] as const)
      for (const channel of [undefined, 'email', 'sms'] as const)
        for (const since of instants)
          for (const until of instants) {
            if (since && until && since >= until) continue;
            const want = expected({ direction, channel, since, until });
            const r = await page({
              pageSize: 200,
              direction: direction?.toUpperCase(),
              channel: channel?.toUpperCase(),
              since: since?.toISOString(),
              until: until?.toISOString(),
            });
            const label = JSON.stringify({ direction, channel, since, until });
            expect(r.totalCount, label).to.equal(want.length);
            expect(
              r.nodes.map((n) => n.id),
              label,
            ).to.deep.equal(want);
            checked++;
          }
    expect(checked).to.be.greaterThan(150);
    // A small page keeps the filtered total.
    const sms = await page({ pageSize: 2, channel: 'SMS', direction: 'INBOUND' });
    expect(sms.totalCount).to.equal(expected({ channel: 'sms', direction: 'inbound' }).length);
    expect(sms.nodes).to.have.length(2);
  });

  it('refuses hostile arguments as BAD_USER_INPUT naming the argument, never INTERNAL', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ pageSize: 0 }, /^pageSize: must be between 1 and 200/],
      [{ pageSize: 201 }, /^pageSize: must be between 1 and 200/],
      [{ pageSize: -5 }, /^pageSize: must be between 1 and 200/],
      [{ page: 0 }, /^page: must be between 1 and 1000000000/],
      [{ page: -1 }, /^page: must be between 1 and 1000000000/],
      [{ page: 1_000_000_001 }, /^page: must be between 1 and 1000000000/],
      [{ since: '2026-10-03T00:00:00Z', until: '2026-10-02T00:00:00Z' }, /^until: must be later than since/],
      [{ since: '2026-10-03T00:00:00Z', until: '2026-10-03T00:00:00Z' }, /^until: must be later than since/],
      [{ direction: 'SIDEWAYS' }, /MessageDirection/],
      [{ channel: 'email' }, /MessageChannel/],
      [{ since: 'yesterday' }, /since/],
      [{ pageSize: 1.5 }, /pageSize/],
      [{ page: 2 ** 40 }, /page/],
    ];
    for (const [vars, message] of cases) {
      const r = await list(vars);
      const label = JSON.stringify(vars);
      expect(errorCode(r), label).to.equal('BAD_USER_INPUT');
      expect(r.errors![0]!.message, label).to.match(message);
    }
    // Literals in the document are GraphQL's validation; still no INTERNAL.
    for (const args of ['direction: SIDEWAYS', 'pageSize: "ten"', 'page: null']) {
      const r = await gql(ws.adminToken, `query($id: ID!) { agent(id: $id) { messages(${args}) { totalCount } } }`, {
        id: agentId,
      });
      expect(r.status, args).to.equal(400);
      expect(errorCode(r), args).to.equal('GRAPHQL_VALIDATION_FAILED');
    }
  });

  it("reads only agents the member may read: another member's private agent and another workspace's are not found", async () => {
    const alice = await ws.addMember();
    const bob = await ws.addMember();
    const privateId = await createAgent(alice.token, { name: 'Alice private', visibility: 'PRIVATE' });
    await gqlOk(
      alice.token,
      `mutation($id: ID!) { recordMessage(agentId: $id, input: {direction: INBOUND, channel: EMAIL, from: "a@x.test", to: "b@x.test", body: "secret"}) { id } }`,
      { id: privateId },
    );
    expect(
      (await gqlOk(alice.token, `query($id: ID!) { agent(id: $id) { messages { totalCount } } }`, { id: privateId }))
        .agent.messages.totalCount,
    ).to.equal(1);
    const refused = await gql(
      bob.token,
      `query($id: ID!) { agent(id: $id) { messages { totalCount nodes { body } } } }`,
      { id: privateId },
    );
    expect(errorCode(refused)).to.equal('NOT_FOUND');
    expect(JSON.stringify(refused)).to.not.include('secret');
    // Listed agents carry their own messages only; bob's list has no private agent of alice.
    const listed = await gqlOk(bob.token, '{ agents { id messages(pageSize: 5) { totalCount } } }');
    expect(listed.agents.map((a: { id: string }) => a.id)).to.not.include(privateId);
    expect(listed.agents.find((a: { id: string }) => a.id === agentId).messages.totalCount).to.equal(30);
    const other = await newWorkspace();
    expect(
      errorCode(
        await gql(other.adminToken, `query($id: ID!) { agent(id: $id) { messages { totalCount } } }`, { id: agentId }),
      ),
    ).to.equal('NOT_FOUND');
  });

  it('bounds agents { messages } by the complexity limit before any query runs', async () => {
    const r = await gql(
      ws.adminToken,
      'query($n: Int) { agents { messages(pageSize: $n) { nodes { id from to subject status } } } }',
      { n: 10 },
    );
    expect(r.status).to.equal(400);
    expect(errorCode(r)).to.equal('GRAPHQL_VALIDATION_FAILED');
    expect(r.errors![0]!.message).to.match(/^Query may return more than 1000 fields/);
  });
});
