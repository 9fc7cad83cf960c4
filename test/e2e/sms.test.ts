import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { until } from '../helpers/until.js';

// The SMS channel end to end (docs/decisions.md §30): a Twilio-compatible provider's callbacks,
// signed with the `twilio` package's own helper, reach the service under BASE_URL as the provider
// sees it; the agent's answer goes out through a local stand-in of the Messages API, whose status
// callbacks then update the stored message. Both databases (TEST_DATABASE_URL for PostgreSQL).

const ADMIN_TOKEN = 'sms-e2e-admin-token-0123456789abcdef';
const BASE_URL = 'https://sms.example.test';
const ACCOUNT = 'AC0123456789abcdef';
const TOKEN = 'twilio-auth-token-for-tests';
const CUSTOMER = '+14155550123';

interface SentRequest {
  path: string;
  authorization: string | undefined;
  form: Record<string, string>;
}

/** A stand-in of the Messages API: records each request and answers as Twilio does (201, a sid). */
async function startMessagesApi(): Promise<{ url: string; sent: SentRequest[]; close(): Promise<void> }> {
  const sent: SentRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      sent.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        form: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))),
      });
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ sid: `SM${String(sent.length).padStart(32, '0')}`, status: 'queued' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('e2e: SMS channel (Twilio-compatible)', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let api: Awaited<ReturnType<typeof startMessagesApi>>;
  let wsKey: string;
  let numbers = 0;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  /** An agent with the SMS surface on and one SMS channel on a number of its own. */
  async function smsAgent(
    handler: Record<string, string>,
    channel: Record<string, unknown> = {},
    opts: { surfaceOn?: boolean } = {},
  ) {
    const id = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: { name: `Texts ${++numbers}`, instructions: 'You answer texts.', defaultModel: 'fake-model' },
      })
    ).createAgent.id as string;
    if (opts.surfaceOn !== false)
      await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: SMS, enabled: true) { id } }', { a: id });
    const address = `+1415555${String(1000 + numbers)}`;
    const d = await gql(
      'mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { id kind address autoReply allowedSenders } }',
      { a: id, i: { kind: 'SMS', address, handler, ...channel } },
    );
    return { id, number: address, channel: d.addChannel };
  }

  /** Posts a provider callback signed as Twilio signs it (the URL under BASE_URL, the form). */
  function callback(path: string, params: Record<string, string>, signature?: string | null) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    const sig =
      signature === undefined ? twilio.getExpectedTwilioSignature(TOKEN, `${BASE_URL}${path}`, params) : signature;
    if (sig !== null) headers['x-twilio-signature'] = sig;
    return fetch(`${svc.url}${path}`, { method: 'POST', headers, body: new URLSearchParams(params) });
  }

  const text = (agentId: string, to: string, body: string, sid: string, from = CUSTOMER) =>
    callback(`/agents/${agentId}/sms`, { MessageSid: sid, AccountSid: ACCOUNT, From: from, To: to, Body: body });

  /** The agent's stored messages, oldest first. */
  async function stored(agentId: string): Promise<any[]> {
    return svc.service
      .db('messages')
      .where({ agent_id: agentId })
      .orderBy([{ column: 'created_at' }, { column: 'direction' }]);
  }

  const sentTo = (to: string) => api.sent.filter((s) => s.form.To === to);

  before(async () => {
    api = await startMessagesApi();
    svc = await startE2eService('sms_e2e', {
      adminToken: ADMIN_TOKEN,
      env: { BASE_URL, TWILIO_ACCOUNT_SID: ACCOUNT, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_API_BASE: api.url },
      build: { channelWorker: { pollMs: 50, deferMaxMs: 200 } },
    });
    wsKey = (await gql('mutation { createWorkspaceApiKey(name: "ws", scopes: [WORKSPACE_READ]) { key } }'))
      .createWorkspaceApiKey.key;
  });

  after(async () => {
    await svc?.stop();
    await api?.close();
  });

  it('answers a signed text with empty TwiML at once, runs the script handler, sends its reply through the Messages API, and a status callback updates it', async () => {
    const a = await smsAgent({ script: 'return { reply: "Got " + input.text + " from " + input.from };' });
    expect(a.channel).to.include({ kind: 'SMS', address: a.number, autoReply: true });
    const sid = 'SM11111111111111111111111111111111';
    const r = await text(a.id, a.number, 'hello', sid);
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^text\/xml/);
    expect(await r.text()).to.match(/<Response\/>$/);

    const [send] = await until('the reply to be sent', async () =>
      sentTo(CUSTOMER).find((s) => s.form.Body === 'Got hello from +14155550123') ? sentTo(CUSTOMER) : undefined,
    );
    expect(send!.path).to.equal(`/2010-04-01/Accounts/${ACCOUNT}/Messages.json`);
    expect(send!.authorization).to.equal(`Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString('base64')}`);
    expect(send!.form).to.deep.include({
      From: a.number,
      To: CUSTOMER,
      StatusCallback: `${BASE_URL}/agents/${a.id}/sms/status`,
    });

    const out = await until('the reply to be stored as sent', async () =>
      (await stored(a.id)).find((m) => m.direction === 'outbound' && m.status === 'sent'),
    );
    const inbound = (await stored(a.id)).find((m) => m.direction === 'inbound');
    expect(inbound).to.include({
      status: 'answered',
      message_id: sid,
      from_address: CUSTOMER,
      to_address: a.number,
      body: 'hello',
      channel: 'sms',
      channel_id: a.channel.id,
    });
    expect(out).to.include({
      in_reply_to: sid,
      thread_id: inbound.thread_id,
      from_address: a.number,
      to_address: CUSTOMER,
      attempts: 1,
      run_id: inbound.run_id,
    });
    expect(out.message_id).to.match(/^SM0+\d+$/);
    expect(out.provider.sends).to.have.length(1);

    const status = await callback(`/agents/${a.id}/sms/status`, {
      MessageSid: out.message_id,
      MessageStatus: 'delivered',
      AccountSid: ACCOUNT,
    });
    expect(status.status).to.equal(204);
    const after = (await stored(a.id)).find((m) => m.id === out.id);
    expect(after.status).to.equal('delivered');
    expect(after.provider.callbacks.map((c: any) => c.status)).to.deep.equal(['delivered']);
    // A late `sent` does not take a delivered message back.
    expect(
      (await callback(`/agents/${a.id}/sms/status`, { MessageSid: out.message_id, MessageStatus: 'sent' })).status,
    ).to.equal(204);
    expect((await stored(a.id)).find((m) => m.id === out.id).status).to.equal('delivered');

    await svc.service.services.activityLog.flush();
    const act = await gql(
      'query($a: ID!) { agent(id: $a) { activity(first: 20, surface: SMS) { nodes { kind status entry runId } } } }',
      { a: a.id },
    );
    const kinds = act.agent.activity.nodes.map((n: any) => `${n.kind} ${n.status ?? ''}`.trim());
    expect(kinds).to.include.members(['REQUEST 200', 'REQUEST 204', 'RUN']);
  });

  it('answers with a prompt handler through the model', async () => {
    const a = await smsAgent({ prompt: 'Answer the customer in one sentence.' });
    svc.fake.enqueue({ text: 'We open at nine.' });
    expect((await text(a.id, a.number, 'When do you open?', 'SM22222222222222222222222222222222')).status).to.equal(
      200,
    );
    await until('the model answer to be sent', async () =>
      sentTo(CUSTOMER).find((s) => s.form.Body === 'We open at nine.' && s.form.From === a.number),
    );
    const asked = svc.fake.requests.at(-1)!;
    expect(JSON.stringify(asked.body.messages)).to.include('When do you open?');
  });

  it('refuses a bad or missing signature with 401 and stores nothing; a signature of another URL is a bad one', async () => {
    const a = await smsAgent({ script: 'return "hi";' });
    const params = { MessageSid: 'SM3', From: CUSTOMER, To: a.number, Body: 'x' };
    const path = `/agents/${a.id}/sms`;
    for (const sig of [
      null,
      'bm90IGEgc2lnbmF0dXJl',
      twilio.getExpectedTwilioSignature(TOKEN, `http://elsewhere.test${path}`, params),
      twilio.getExpectedTwilioSignature('other-token', `${BASE_URL}${path}`, params),
    ]) {
      const r = await callback(path, params, sig);
      expect(r.status, String(sig)).to.equal(401);
      expect(((await r.json()) as any).error).to.match(/^SMS signature check failed/);
    }
    expect(await stored(a.id)).to.deep.equal([]);
    expect((await callback('/agents/agt_nobody/sms', params)).status).to.equal(404);
  });

  it('answers the same MessageSid once, however often the provider redelivers it', async () => {
    const a = await smsAgent({ script: 'return "once";' });
    const sid = 'SM44444444444444444444444444444444';
    const answers = await Promise.all([text(a.id, a.number, 'again', sid), text(a.id, a.number, 'again', sid)]);
    expect(answers.map((r) => r.status)).to.deep.equal([200, 200]);
    expect((await text(a.id, a.number, 'again', sid)).status).to.equal(200);
    await until('the answer to be sent', async () =>
      (await stored(a.id)).find((m) => m.direction === 'outbound' && m.status === 'sent'),
    );
    const rows = await stored(a.id);
    expect(rows.map((m) => m.direction)).to.deep.equal(['inbound', 'outbound']);
    expect(sentTo(CUSTOMER).filter((s) => s.form.From === a.number)).to.have.length(1);
  });

  it('stores a text from a sender not allowed, and one to an agent whose surface is off is 403 and not stored', async () => {
    const a = await smsAgent({ script: 'return "hello";' }, { allowedSenders: ['+1 (415) 555-0999'] });
    expect(a.channel.allowedSenders).to.deep.equal(['+14155550999']);
    expect((await text(a.id, a.number, 'let me in', 'SM55555555555555555555555555555555')).status).to.equal(200);
    const [m] = await stored(a.id);
    expect(m).to.include({ status: 'ignored', next_attempt_at: null });
    const off = await smsAgent({ script: 'return "x";' }, {}, { surfaceOn: false });
    const r = await text(off.id, off.number, 'hi', 'SM6');
    expect(r.status).to.equal(403);
    expect(await stored(off.id)).to.deep.equal([]);
  });

  it('defers the answer while a daily limit of 0 refuses it (the provider still got 200), and sends it once the limit is lifted', async () => {
    const a = await smsAgent({ script: 'return "after the limit";' });
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: a.id });
    expect((await text(a.id, a.number, 'are you there?', 'SM77777777777777777777777777777777')).status).to.equal(200);
    const held = await until('the answer to be deferred', async () =>
      (await stored(a.id)).find((m) => m.status === 'deferred'),
    );
    expect(held.last_error).to.match(/limit/i);
    expect(sentTo(CUSTOMER).filter((s) => s.form.From === a.number)).to.deep.equal([]);
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: null) { id } }', { a: a.id });
    await until('the deferred answer to be sent', async () =>
      sentTo(CUSTOMER).find((s) => s.form.From === a.number && s.form.Body === 'after the limit'),
    );
    // The provider's answer is recorded after the request it answered: wait for the stored status.
    await until('the reply to be stored as sent', async () =>
      (await stored(a.id)).find((m) => m.direction === 'outbound' && m.status === 'sent'),
    );
    const rows = await stored(a.id);
    expect(rows.map((m) => [m.direction, m.status])).to.deep.equal([
      ['inbound', 'answered'],
      ['outbound', 'sent'],
    ]);
  });

  it("lists both directions in the Workspace API's messages, with exact totalCount per channel and direction", async () => {
    const a = await smsAgent({ script: 'return "ok " + input.text;' });
    for (const [i, body] of ['one', 'two'].entries())
      expect((await text(a.id, a.number, body, `SM8${i}`)).status).to.equal(200);
    await until('both answers to be sent', async () =>
      (await stored(a.id)).filter((m) => m.status === 'sent').length === 2 ? true : undefined,
    );
    const list = async (query: string) => {
      const r = await fetch(`${svc.url}/workspaceapi/agents/${a.id}/messages${query}`, {
        headers: { authorization: `Bearer ${wsKey}` },
      });
      expect(r.status).to.equal(200);
      return (await r.json()) as any;
    };
    const all = await list('');
    expect(all.totalCount).to.equal(4);
    expect(all.messages.map((m: any) => m.body).sort()).to.deep.equal(['ok one', 'ok two', 'one', 'two']);
    expect(Object.keys(all.messages[0]).sort()).to.deep.equal([
      'body',
      'channel',
      'direction',
      'from',
      'id',
      'sentAt',
      'status',
      'subject',
      'threadId',
      'to',
    ]);
    expect(all.messages.every((m: any) => m.threadId === `${a.channel.id}:${CUSTOMER}`)).to.equal(true);
    expect((await list('?channel=sms')).totalCount).to.equal(4);
    expect((await list('?channel=email')).totalCount).to.equal(0);
    expect((await list('?direction=inbound')).totalCount).to.equal(2);
    const out = await list('?channel=sms&direction=outbound');
    expect(out.totalCount).to.equal(2);
    expect(out.messages.every((m: any) => m.from === a.number && m.to === CUSTOMER)).to.equal(true);
  });
});
