import { expect } from 'chai';
import { newId } from '../../src/domain/ids.js';
import type { ActivityEntry } from '../../src/domain/activity/activity.entities.js';
import type { Surface } from '../../src/domain/core/surface.entities.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { expectError, recordMessage, workspaceKey, wsApi } from '../helpers/workspace-api.js';

// Every call goes through wsApi, which also validates the body against the served OpenAPI
// document and checks that each failure body is exactly {"error": string}.

const BASE = Date.UTC(2026, 0, 10);
const HOUR = 3_600_000;
// 12 messages an hour apart: direction alternates, every third one is an SMS.
const SEED = Array.from({ length: 12 }, (_, i) => ({
  direction: i % 2 === 0 ? ('inbound' as const) : ('outbound' as const),
  channel: i % 3 === 0 ? ('sms' as const) : ('email' as const),
  sentAt: new Date(BASE + i * HOUR),
}));
const at = (i: number) => new Date(BASE + i * HOUR).toISOString();

describe('Workspace API: messages, activity, usage, agents, overview, errors', () => {
  let ws: TestWorkspace;
  let key: string;
  let agentId: string;
  let privateId: string;
  let emptyId: string;
  const ids: string[] = [];
  const messages = (agent: string, query = '', k = key) =>
    wsApi(`/workspaceapi/agents/${agent}/messages${query}`, { key: k });

  before(async function () {
    this.timeout(60_000);
    ws = await newWorkspace();
    key = (await workspaceKey(ws.adminToken)).key;
    agentId = await createAgent(ws.adminToken, { name: 'Mailer' });
    privateId = await createAgent(ws.adminToken, { name: 'Secretive', visibility: 'PRIVATE' });
    emptyId = await createAgent(ws.adminToken, { name: 'Quiet' });
    for (const m of SEED) ids.push(await recordMessage(ws.adminToken, agentId, m));
    // Another agent's message must not show up in the first agent's list.
    await recordMessage(ws.adminToken, privateId, { direction: 'inbound', channel: 'email', sentAt: new Date(BASE) });
  });

  describe('messages', () => {
    it('lists newest first with the documented fields and default paging', async () => {
      const r = await messages(agentId);
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ totalCount: 12, page: 1, pageSize: 50 });
      expect(r.body.messages.map((m: any) => m.id)).to.deep.equal([...ids].reverse());
      expect(Object.keys(r.body.messages[0])).to.have.members([
        'id',
        'direction',
        'channel',
        'from',
        'to',
        'subject',
        'body',
        'sentAt',
        'threadId',
        'status',
      ]);
      // Recorded by a connector: no channel, so no thread and no status.
      expect(r.body.messages[0]).to.include({
        direction: 'outbound',
        channel: 'email',
        sentAt: at(11),
        subject: 'Hello',
        threadId: null,
        status: null,
      });
    });

    it('narrows totalCount as direction, channel and dates narrow the filter', async () => {
      const count = (f: (m: (typeof SEED)[number], i: number) => boolean) => SEED.filter(f).length;
      const cases: [string, number][] = [
        ['', 12],
        ['?direction=inbound', count((m) => m.direction === 'inbound')],
        ['?channel=sms', count((m) => m.channel === 'sms')],
        ['?direction=outbound&channel=sms', count((m) => m.direction === 'outbound' && m.channel === 'sms')],
        [`?since=${at(3)}`, count((_, i) => i > 3)],
        [`?until=${at(3)}`, count((_, i) => i < 3)],
        [`?since=${at(2)}&until=${at(9)}`, count((_, i) => i > 2 && i < 9)],
        [
          `?direction=inbound&channel=email&since=${at(0)}&until=${at(11)}`,
          count((m, i) => m.direction === 'inbound' && m.channel === 'email' && i > 0 && i < 11),
        ],
      ];
      const seen = new Set<number>();
      for (const [query, expected] of cases) {
        const r = await messages(agentId, query);
        expect(r.status, query).to.equal(200);
        expect(r.body.totalCount, query).to.equal(expected);
        expect(r.body.messages, query).to.have.length(expected);
        seen.add(expected);
      }
      expect(seen.size).to.be.greaterThan(5);
    });

    it('treats since and until as strict bounds, also as dates and with offsets', async () => {
      const onlyThird = await messages(agentId, `?since=${at(2)}&until=${at(4)}`);
      expect(onlyThird.body.messages.map((m: any) => m.sentAt)).to.deep.equal([at(3)]);
      // 2026-01-10 is midnight UTC = the first message's time, so "strictly after" excludes it.
      expect((await messages(agentId, '?since=2026-01-10')).body.totalCount).to.equal(11);
      expect((await messages(agentId, '?until=2026-01-11')).body.totalCount).to.equal(12);
      expect(
        (await messages(agentId, `?since=${encodeURIComponent('2026-01-10T02:00:00+01:00')}`)).body.totalCount,
      ).to.equal(10);
    });

    it('pages through the list; a page past the end is 200 with an empty list', async () => {
      const pages = [];
      for (const page of [1, 2, 3]) pages.push((await messages(agentId, `?pageSize=5&page=${page}`)).body);
      expect(pages.map((p) => p.messages.length)).to.deep.equal([5, 5, 2]);
      expect(pages.flatMap((p) => p.messages.map((m: any) => m.id))).to.deep.equal([...ids].reverse());
      expect(pages.every((p) => p.totalCount === 12 && p.pageSize === 5)).to.equal(true);
      const past = await messages(agentId, '?pageSize=5&page=4');
      expect(past.status).to.equal(200);
      expect(past.body).to.deep.equal({ messages: [], totalCount: 12, page: 4, pageSize: 5 });
      expect((await messages(agentId, '?page=1000000000')).body.messages).to.deep.equal([]);
    });

    it('accepts pageSize 1 and 200 and page 1', async () => {
      expect((await messages(agentId, '?pageSize=1')).body.messages).to.have.length(1);
      expect((await messages(agentId, '?pageSize=200&page=1')).body).to.include({
        pageSize: 200,
        page: 1,
        totalCount: 12,
      });
    });

    it('answers 200 with an empty list for an agent without messages', async () => {
      const r = await messages(emptyId);
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({ messages: [], totalCount: 0, page: 1, pageSize: 50 });
    });

    it('refuses every out-of-range, non-numeric or unknown value with 400 naming the parameter', async () => {
      const bad: [string, RegExp][] = [
        ['pageSize=0', /^Invalid query parameters: pageSize must be an integer from 1 to 200$/],
        ['pageSize=201', /pageSize must be an integer from 1 to 200/],
        ['pageSize=abc', /pageSize must be an integer/],
        ['pageSize=1.5', /pageSize must be an integer/],
        ['pageSize=-1', /pageSize/],
        ['pageSize=', /pageSize/],
        ['pageSize=1e2', /pageSize/],
        ['page=0', /^Invalid query parameters: page must be an integer from 1 to 1000000000$/],
        ['page=x', /page must be an integer/],
        ['page=1&page=2', /page must be an integer/],
        ['direction=sideways', /^Invalid query parameters: direction must be inbound or outbound$/],
        ['direction=INBOUND', /direction must be inbound or outbound/],
        ['channel=fax', /^Invalid query parameters: channel must be email or sms$/],
        ['since=yesterday', /^Invalid query parameters: since must be an ISO 8601 date or date-time/],
        ['since=2026-02-30', /since must be an ISO 8601/],
        ['until=2026-01-10T25:00:00Z', /until must be an ISO 8601/],
        ['until=2026-01-10T10:00:00', /until must be an ISO 8601/],
      ];
      for (const [query, message] of bad) expectError(await messages(agentId, `?${query}`), 400, message);
    });

    it('names every invalid parameter in one message, in declaration order', async () => {
      const r = await messages(agentId, '?channel=fax&direction=up&pageSize=0&page=x&since=soon&until=later&ok=1');
      expectError(r, 400);
      expect(r.body.error).to.equal(
        'Invalid query parameters: pageSize must be an integer from 1 to 200; page must be an integer from 1 to 1000000000; ' +
          'direction must be inbound or outbound; channel must be email or sms; ' +
          'since must be an ISO 8601 date or date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z; ' +
          'until must be an ISO 8601 date or date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z; ' +
          '"ok" is not a parameter of this endpoint (its parameters are pageSize, page, direction, channel, since, until)',
      );
    });
  });

  describe('unknown query parameters', () => {
    it('are a 400 naming them and the parameters the endpoint takes, on every endpoint', async () => {
      const cases: [string, string][] = [
        ['/workspaceapi/overview?limit=5', '"limit" is not a parameter of this endpoint (it takes none)'],
        [
          '/workspaceapi/agents?limit=5',
          '"limit" is not a parameter of this endpoint (its parameters are includeOverview)',
        ],
        [
          `/workspaceapi/agents/${agentId}?includeOverview=true`,
          '"includeOverview" is not a parameter of this endpoint (it takes none)',
        ],
        [
          `/workspaceapi/agents/${agentId}/messages?limit=5`,
          '"limit" is not a parameter of this endpoint (its parameters are pageSize, page, direction, channel, since, until)',
        ],
        [
          `/workspaceapi/agents/${agentId}/activity?limit=5&offset=10`,
          '"limit", "offset" are not parameters of this endpoint (its parameters are pageSize, page, surface, kind, since, until, includeProtocol)',
        ],
        [
          `/workspaceapi/agents/${agentId}/usage?pageSize=5`,
          '"pageSize" is not a parameter of this endpoint (its parameters are days)',
        ],
      ];
      for (const [path, message] of cases) {
        const r = await wsApi(path, { key });
        expectError(r, 400);
        expect(r.body.error, path).to.equal(`Invalid query parameters: ${message}`);
      }
      // ?limit=5 no longer silently answers the default page of 50; the parameter it meant works.
      expect((await messages(agentId, '?pageSize=5')).body.messages).to.have.length(5);
      // A known parameter with a bad value and an unknown one: both are named, the known one first.
      expectError(
        await messages(agentId, '?limit=5&pageSize=0'),
        400,
        /^Invalid query parameters: pageSize must be an integer from 1 to 200; "limit" is not a parameter/,
      );
    });

    it('come after the key, the scope and the agent checks', async () => {
      const { key: noScope } = await workspaceKey(ws.adminToken, []);
      expectError(await wsApi('/workspaceapi/overview?limit=5'), 401);
      expectError(await wsApi('/workspaceapi/overview?limit=5', { key: noScope }), 403);
      expectError(await wsApi(`/workspaceapi/agents/${privateId}/messages?limit=5`, { key }), 403, /private/);
      expectError(await wsApi('/workspaceapi/agents/agt_missing?x=1', { key }), 404, /Agent/);
    });
  });

  describe('activity and usage', () => {
    const surfaces: Surface[] = ['HTTP_API', 'MCP', 'WEBHOOKS', 'HTTP_API', 'WEBHOOKS', 'DOCUMENT_API'];
    before(async () => {
      const entries: ActivityEntry[] = surfaces.map((surface, i) => ({
        id: newId('act'),
        workspaceId: ws.workspaceId,
        agentId,
        kind: surface === 'WEBHOOKS' && i > 2 ? 'run' : 'request',
        surface,
        entry: 'orders',
        method: 'POST',
        path: `/agents/${agentId}/x`,
        status: 200,
        requestHeaders: { authorization: '[redacted]' },
        requestBody: { n: i },
        response: i % 2 ? 'text' : { ok: true },
        truncated: false,
        credits: 0.5,
        durationMs: 12,
        keyId: null,
        // The MCP call came from an OAuth client a member approved.
        oauthClientId: surface === 'MCP' ? 'https://claude.ai/oauth/client.json' : null,
        grantedBy: surface === 'MCP' ? ws.adminId : null,
        runId: `run_${i}`,
        requestId: null,
        error: null,
        logs: ['internal'],
        createdAt: new Date(BASE + i * HOUR),
        protocol: false,
        deliveryId: null,
      }));
      await h().service.store.repos.activity.insertMany(entries);
      const { repos } = h().service.store;
      const today = new Date().toISOString().slice(0, 10);
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      for (const [day, credits] of [
        [today, 1.5],
        [today, 1.5],
        [yesterday, 0.25],
      ] as const) {
        await repos.usage.charge({ agentId, workspaceId: ws.workspaceId, teamId: null, day, credits });
      }
    });

    it('lists activity newest first with DESIGN §5 fields, filtered by surface, kind and dates', async () => {
      const all = await wsApi(`/workspaceapi/agents/${agentId}/activity`, { key });
      expect(all.body).to.include({ totalCount: 6, page: 1, pageSize: 50 });
      expect(all.body.entries.map((e: any) => e.runId)).to.deep.equal([
        'run_5',
        'run_4',
        'run_3',
        'run_2',
        'run_1',
        'run_0',
      ]);
      expect(Object.keys(all.body.entries[0])).to.have.members([
        'id',
        'kind',
        'surface',
        'entry',
        'method',
        'path',
        'status',
        'requestHeaders',
        'requestBody',
        'response',
        'truncated',
        'credits',
        'durationMs',
        'keyId',
        'oauthClientId',
        'grantedBy',
        'runId',
        'requestId',
        'error',
        'protocol',
        'deliveryId',
        'createdAt',
      ]);
      expect(all.body.entries.find((e: any) => e.surface === 'MCP')).to.include({
        oauthClientId: 'https://claude.ai/oauth/client.json',
        grantedBy: ws.adminId,
        keyId: null,
      });
      expect(all.body.entries.find((e: any) => e.surface === 'HTTP_API')).to.include({
        oauthClientId: null,
        grantedBy: null,
      });
      const counts: [string, number][] = [
        ['?surface=WEBHOOKS', 2],
        ['?kind=run', 1],
        ['?surface=WEBHOOKS&kind=request', 1],
        ['?surface=HTTP_API&kind=request', 2],
        ['?surface=WIDGET', 0],
        [`?since=${at(1)}&until=${at(5)}`, 3],
        [`?surface=WEBHOOKS&kind=run&since=${at(3)}`, 1],
        ['?pageSize=2&page=3', 6],
      ];
      for (const [q, n] of counts)
        expect((await wsApi(`/workspaceapi/agents/${agentId}/activity${q}`, { key })).body.totalCount, q).to.equal(n);
      expectError(
        await wsApi(`/workspaceapi/agents/${agentId}/activity?surface=SMTP&kind=job`, { key }),
        400,
        /^Invalid query parameters: surface must be one of HTTP_API, DOCUMENT_API, MCP, WIDGET, WEBHOOKS, OPENAI, A2A, EMAIL, SMS, SCHEDULE; kind must be request or run$/,
      );
    });

    it('reports credits per UTC day, every day of the range, newest first', async () => {
      const r = await wsApi(`/workspaceapi/agents/${agentId}/usage?days=3`, { key });
      expect(r.body.days.map((d: any) => [d.credits, d.runs])).to.deep.equal([
        [3, 2],
        [0.25, 1],
        [0, 0],
      ]);
      expect(r.body).to.include({
        agentId,
        totalCredits: 3.25,
        totalRuns: 3,
        to: r.body.days[0].day,
        from: r.body.days[2].day,
      });
      expect((await wsApi(`/workspaceapi/agents/${agentId}/usage`, { key })).body.days).to.have.length(30);
      expectError(
        await wsApi(`/workspaceapi/agents/${agentId}/usage?days=367`, { key }),
        400,
        /days must be an integer from 1 to 366/,
      );
    });
  });

  describe('schedules', () => {
    it("lists an agent's schedules by name with their next five fires; a private agent's are refused", async () => {
      const add = 'mutation($a: ID!, $i: ScheduleInput!) { addSchedule(agentId: $a, input: $i) { id } }';
      await gqlOk(ws.adminToken, add, {
        a: emptyId,
        i: { name: 'nightly', cron: '0 2 * * *', timeZone: 'Europe/Paris', handler: { prompt: 'Tidy up.' } },
      });
      await gqlOk(ws.adminToken, add, {
        a: emptyId,
        i: { name: 'beat', intervalSeconds: 60, handler: { script: 'return 1;' } },
      });
      const r = await wsApi(`/workspaceapi/agents/${emptyId}/schedules`, { key });
      expect(r.status).to.equal(200);
      expect(r.body.schedules.map((s: any) => s.name)).to.deep.equal(['beat', 'nightly']);
      expect(r.body.schedules[1]).to.deep.include({
        cron: '0 2 * * *',
        timeZone: 'Europe/Paris',
        intervalSeconds: null,
        handlerKind: 'prompt',
        enabled: true,
        catchUp: false,
        overlap: 'SKIP',
      });
      expect(r.body.schedules[0].nextFires).to.have.length(5);
      expect(new Date(r.body.schedules[0].nextFires[0]).getUTCSeconds()).to.equal(0);
      expectError(await wsApi(`/workspaceapi/agents/${privateId}/schedules`, { key }), 403);
      expectError(await wsApi(`/workspaceapi/agents/${emptyId}/schedules?first=2`, { key }), 400);
    });
  });

  describe('authentication, policy and unknown endpoints', () => {
    it('answers 401 for a missing key, another scheme, an unknown, revoked or agent key, and a member token', async () => {
      const path = `/workspaceapi/agents/${agentId}/messages`;
      expectError(await wsApi(path), 401);
      expectError(await wsApi(path, { authorization: `Basic ${key}` }), 401);
      expectError(await wsApi(path, { authorization: key }), 401);
      expectError(await wsApi(path, { key: 'wk_notarealkeynotarealkeynotarealkey00000' }), 401);
      const agentKey = (
        await gqlOk(ws.adminToken, 'mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', {
          a: agentId,
        })
      ).createAgentApiKey.key;
      expectError(await wsApi(path, { key: agentKey }), 401, /workspace key/);
      expectError(await wsApi(path, { key: ws.adminToken }), 401);
      const revoked = await workspaceKey(ws.adminToken);
      expect((await wsApi(path, { key: revoked.key })).status).to.equal(200);
      await gqlOk(ws.adminToken, 'mutation($id: ID!) { revokeApiKey(id: $id) }', { id: revoked.id });
      expectError(await wsApi(path, { key: revoked.key }), 401);
    });

    it('answers 403 for a key without the WORKSPACE_READ scope, on every endpoint', async () => {
      const { key: noScope } = await workspaceKey(ws.adminToken, []);
      for (const p of [
        'overview',
        'agents',
        `agents/${agentId}`,
        `agents/${agentId}/messages`,
        `agents/${agentId}/activity`,
        `agents/${agentId}/usage`,
      ]) {
        expectError(await wsApi(`/workspaceapi/${p}`, { key: noScope }), 403, /WORKSPACE_READ/);
      }
    });

    it('answers 403 on every per-agent endpoint of a private agent, before looking at parameters', async () => {
      for (const p of ['', '/messages', '/activity', '/usage', '/messages?pageSize=0']) {
        expectError(await wsApi(`/workspaceapi/agents/${privateId}${p}`, { key }), 403, /private/);
      }
    });

    it('answers 404 for unknown agents and agents of other workspaces, before parameters', async () => {
      const other = await newWorkspace();
      const foreign = await createAgent(other.adminToken);
      for (const id of ['agt_missing', foreign]) {
        for (const p of ['', '/messages?pageSize=0', '/activity', '/usage'])
          expectError(await wsApi(`/workspaceapi/agents/${id}${p}`, { key }), 404, /Agent/);
      }
    });

    it('checks the key before parameters, and the endpoint before the key', async () => {
      expectError(await wsApi(`/workspaceapi/agents/${agentId}/messages?pageSize=0`), 401);
      for (const p of [
        '/workspaceapi',
        '/workspaceapi/',
        '/workspaceapi/nope',
        `/workspaceapi/agents/${agentId}/secrets`,
        '/workspaceapi/overview/x',
      ]) {
        expectError(await wsApi(p), 404, /No Workspace API endpoint/);
        expectError(await wsApi(p, { key }), 404);
      }
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        expectError(
          await wsApi('/workspaceapi/agents', { key, method }),
          404,
          new RegExp(`${method} /workspaceapi/agents`),
        );
        expectError(await wsApi(`/workspaceapi/agents/${agentId}/messages`, { method }), 404);
      }
    });

    it('keeps the error shape for unexpected failures (500 {error} only, with a request id)', async () => {
      const repo = h().service.store.repos.workspaceRead;
      const original = repo.listMessages;
      repo.listMessages = async () => {
        throw new Error('database exploded');
      };
      try {
        const r = await messages(agentId);
        expectError(r, 500, /request [0-9a-f-]{36}/);
        expect(r.body.error).to.not.match(/exploded/);
      } finally {
        repo.listMessages = original;
      }
    });
  });
});
