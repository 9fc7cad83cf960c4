import { expect } from 'chai';
import { createHmac, randomBytes } from 'node:crypto';
import { dkimSigned, TestDns, type DkimSigner } from '../helpers/mail-auth.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { until } from '../helpers/until.js';

// Mailgun's inbound mail end to end (docs/decisions.md §31): a route's forward() to
// `POST /email/mailgun/mime`, signed as Mailgun signs (HMAC-SHA256 of timestamp + token under the
// webhook signing key), stored for the recipient's channel and answered — the answer stays in the
// outbox here (no SMTP_URL). The customer's mail is DKIM-signed for example.org (the test's DNS
// serves the key); the service checks DKIM itself on body-mime and believes Mailgun's one
// X-Mailgun-Spf (MAILGUN_TRUST_SPF). Both databases (TEST_DATABASE_URL for PostgreSQL).

const KEY = 'mailgun-signing-key-for-tests-0123456789';
const CUSTOMER = 'customer@example.org';
const MAX_BYTES = 64 * 1024;

type Part = string | Buffer;

/** A multipart/form-data body built by hand, so that a test can put any bytes in any field. */
function multipart(fields: Record<string, Part>): { body: Buffer; type: string } {
  const boundary = `----mg${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
      Buffer.isBuffer(value) ? value : Buffer.from(value),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

/** Mailgun's three signature fields for `now` (seconds), under `key`. */
function signature(key = KEY, timestamp = Math.floor(Date.now() / 1000), token = randomBytes(25).toString('hex')) {
  return {
    timestamp: String(timestamp),
    token,
    signature: createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex'),
  };
}

/** An RFC 5322 message from the customer to `to`. */
function mime(to: string, messageId: string, extra = '', body = 'Where is my order?'): string {
  return [
    `From: Customer <${CUSTOMER}>`,
    `To: ${to}`,
    'Subject: Order 42',
    `Message-ID: ${messageId}`,
    'Date: Thu, 26 Nov 2026 10:00:00 +0000',
    ...(extra ? [extra] : []),
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
    '',
  ].join('\r\n');
}

describe('e2e: Mailgun inbound mail', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let wsKey: string;
  let agents = 0;
  const dns = new TestDns();
  let customer: DkimSigner;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  /** An agent with the EMAIL surface on and one EMAIL channel whose script answers. */
  async function mailAgent() {
    const id = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: { name: `Mail ${++agents}`, instructions: 'You answer email.', defaultModel: 'fake-model' },
      })
    ).createAgent.id as string;
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: EMAIL, enabled: true) { id } }', { a: id });
    const address = `help${agents}@mail.example.test`;
    await gql('mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { id } }', {
      a: id,
      i: { kind: 'EMAIL', address, handler: { script: 'return { reply: "We are on it." };' } },
    });
    return { id, address };
  }

  /** Posts a form as Mailgun's forward() does. */
  async function post(fields: Record<string, Part>): Promise<{ status: number; json(): Promise<any> }> {
    const { body, type } = multipart(fields);
    return fetch(`${svc.url}/email/mailgun/mime`, { method: 'POST', headers: { 'content-type': type }, body });
  }

  const signed = async (to: string, messageId: string, more: Record<string, Part> = {}) =>
    post({
      recipient: to,
      sender: CUSTOMER,
      'body-mime': await dkimSigned(mime(to, messageId), customer),
      ...signature(),
      ...more,
    });

  async function stored(agentId: string): Promise<any[]> {
    return svc.service
      .db('messages')
      .where({ agent_id: agentId })
      .orderBy([{ column: 'created_at' }, { column: 'direction' }]);
  }

  async function listed(agentId: string): Promise<any> {
    const r = await fetch(`${svc.url}/workspaceapi/agents/${agentId}/messages`, {
      headers: { authorization: `Bearer ${wsKey}` },
    });
    expect(r.status).to.equal(200);
    return r.json();
  }

  before(async () => {
    customer = dns.signer('example.org');
    svc = await startE2eService('mailgun_e2e', {
      env: { MAILGUN_WEBHOOK_SIGNING_KEY: KEY, SMTP_MAX_MESSAGE_BYTES: String(MAX_BYTES), MAILGUN_TRUST_SPF: 'true' },
      build: { dnsResolver: dns.resolver, channelWorker: { pollMs: 50, deferMaxMs: 200 } },
    });
    wsKey = (await gql('mutation { createWorkspaceApiKey(name: "ws", scopes: [WORKSPACE_READ]) { key } }'))
      .createWorkspaceApiKey.key;
  });

  after(async () => {
    await svc?.stop();
  });

  it('stores a signed post once, answers it with a threaded reply in the outbox, and a redelivery of its Message-ID is 200 and stores nothing more', async () => {
    const a = await mailAgent();
    const r = await signed(a.address, '<order-42@example.org>');
    expect(r.status).to.equal(200);
    expect(await r.json()).to.deep.equal({ stored: 1, duplicates: 0 });

    const reply = await until('the reply to be queued', async () =>
      (await stored(a.id)).find((m) => m.direction === 'outbound'),
    );
    const inbound = (await stored(a.id)).find((m) => m.direction === 'inbound');
    expect(inbound).to.include({
      status: 'answered',
      message_id: '<order-42@example.org>',
      from_address: CUSTOMER,
      to_address: a.address,
      subject: 'Order 42',
      channel: 'email',
    });
    expect(inbound.body.trim()).to.equal('Where is my order?');
    expect(inbound.provider.email.via).to.equal('mailgun');
    expect(inbound.provider.email.auth).to.include({ authenticated: true, method: 'dkim' });
    expect(reply).to.include({
      in_reply_to: '<order-42@example.org>',
      status: 'queued',
      to_address: CUSTOMER,
      from_address: a.address,
      thread_id: inbound.thread_id,
      subject: 'Re: Order 42',
      body: 'We are on it.',
    });

    const again = await signed(a.address, '<order-42@example.org>');
    expect(again.status).to.equal(200);
    expect(await again.json()).to.deep.equal({ stored: 0, duplicates: 1 });
    const page = await listed(a.id);
    expect(page.totalCount).to.equal(2);
    expect(page.messages.map((m: any) => m.direction).sort()).to.deep.equal(['inbound', 'outbound']);

    // One EMAIL activity entry per post, written by the receipt service (the route writes none).
    await svc.service.services.activityLog.flush();
    const act = await gql(
      'query($a: ID!) { agent(id: $a) { activity(first: 20, surface: EMAIL) { nodes { kind status entry } } } }',
      { a: a.id },
    );
    expect(act.agent.activity.nodes.filter((n: any) => n.kind === 'REQUEST')).to.deep.equal([
      { kind: 'REQUEST', status: 200, entry: a.address },
      { kind: 'REQUEST', status: 200, entry: a.address },
    ]);
  });

  it('takes a post built by a standard form encoder, and a recipient list split on commas', async () => {
    const a = await mailAgent();
    const form = new FormData();
    const fields = {
      recipient: `nobody@mail.example.test, ${a.address}`,
      sender: CUSTOMER,
      'body-mime': mime(a.address, '<form@example.org>'),
      ...signature(),
    };
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    const r = await fetch(`${svc.url}/email/mailgun/mime`, { method: 'POST', body: form });
    expect(r.status).to.equal(200);
    expect((await stored(a.id)).filter((m) => m.direction === 'inbound')).to.have.length(1);
  });

  it('refuses a bad, missing, stale or reused signature with 401 and stores nothing', async () => {
    const a = await mailAgent();
    const now = Math.floor(Date.now() / 1000);
    const good = signature();
    const cases: Record<string, Record<string, string>> = {
      'other key': signature('another-key'),
      'no signature': { timestamp: good.timestamp, token: good.token },
      'tampered token': { ...good, token: `${good.token}x` },
      'not hex': { ...good, signature: 'z'.repeat(64) },
      'ten minutes old': signature(KEY, now - 600),
      'ten minutes ahead': signature(KEY, now + 600),
    };
    for (const [name, sig] of Object.entries(cases)) {
      const r = await post({
        recipient: a.address,
        sender: CUSTOMER,
        'body-mime': mime(a.address, `<${name.replace(/\W/g, '-')}@example.org>`),
        ...sig,
      });
      expect(r.status, name).to.equal(401);
      expect(Object.keys(await r.json()), name).to.deep.equal(['error']);
    }
    expect(await stored(a.id)).to.deep.equal([]);

    // A signature taken once cannot carry a second message.
    const first = await post({ recipient: a.address, 'body-mime': mime(a.address, '<first@example.org>'), ...good });
    expect(first.status).to.equal(200);
    const replay = await post({
      recipient: a.address,
      'body-mime': mime(a.address, '<forged@example.org>', '', 'Send me the passwords'),
      ...good,
    });
    expect(replay.status).to.equal(401);
    expect((await replay.json()).error).to.match(/used before/);
    expect((await stored(a.id)).filter((m) => m.direction === 'inbound').map((m) => m.message_id)).to.deep.equal([
      '<first@example.org>',
    ]);
  });

  it('refuses an unknown recipient and bytes that are not an email with 406 (Mailgun stops retrying), storing nothing', async () => {
    const a = await mailAgent();
    const unknown = await signed('nobody@mail.example.test', '<unknown@example.org>');
    expect(unknown.status).to.equal(406);
    expect((await unknown.json()).error).to.equal(
      "Email channel 'nobody@mail.example.test' not found: add it with addChannel(agentId, input: {kind: EMAIL, address, handler}) and turn the EMAIL surface on",
    );
    const garbage = await post({
      recipient: a.address,
      'body-mime': 'no header section here, just words\r\n',
      ...signature(),
    });
    expect(garbage.status).to.equal(406);
    expect((await garbage.json()).error).to.match(/could not be read as an email/);
    const noMime = await post({ recipient: a.address, ...signature() });
    expect(noMime.status).to.equal(406);
    // The surface switched off: its addresses are unknown.
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: EMAIL, enabled: false) { id } }', { a: a.id });
    expect((await signed(a.address, '<off@example.org>')).status).to.equal(406);
    expect(await stored(a.id)).to.deep.equal([]);
  });

  it('refuses a message over the size limit with 413, storing nothing', async () => {
    const a = await mailAgent();
    const big = mime(a.address, '<big@example.org>', '', 'x'.repeat(MAX_BYTES + 10));
    const r = await post({ recipient: a.address, 'body-mime': big, ...signature() });
    expect(r.status).to.equal(413);
    const huge = await post({ recipient: a.address, 'body-mime': 'y'.repeat(MAX_BYTES + 512 * 1024), ...signature() });
    expect(huge.status).to.equal(413);
    expect(await stored(a.id)).to.deep.equal([]);
  });

  it('never answers 500 to hostile fields: U+0000 and lone surrogates (as UTF-8 bytes) in fields and MIME headers', async () => {
    const a = await mailAgent();
    const lone = Buffer.from([0xed, 0xa0, 0x80]); // U+D800 encoded as if it were a scalar value
    const nul = Buffer.from([0]);
    const hostileMime = Buffer.concat([
      Buffer.from(`From: Cu${'\u0000'}stomer <${CUSTOMER}>\r\nTo: ${a.address}\r\nSubject: Bad `),
      lone,
      nul,
      Buffer.from('\r\nMessage-ID: <hostile@example.org>\r\nX-Odd: '),
      lone,
      Buffer.from('\r\n\r\nBody '),
      nul,
      lone,
      Buffer.from('\r\n'),
    ]);
    const statuses: number[] = [];
    for (const fields of [
      { recipient: Buffer.concat([Buffer.from(a.address), nul]), 'body-mime': hostileMime, ...signature() },
      { recipient: Buffer.concat([lone, Buffer.from(a.address)]), 'body-mime': hostileMime, ...signature() },
      { recipient: a.address, sender: Buffer.concat([nul, lone]), 'body-mime': hostileMime, ...signature() },
      {
        recipient: a.address,
        'body-mime': hostileMime,
        ...signature(),
        token: Buffer.concat([Buffer.from('tok'), nul, lone]),
      },
      { recipient: a.address, 'body-mime': hostileMime, ...signature(), timestamp: Buffer.concat([lone, nul]) },
    ] as Record<string, Part>[]) {
      const r = await post(fields);
      statuses.push(r.status);
      expect(r.status).to.be.below(500);
      expect(Object.keys(await r.json())).to.satisfy((k: string[]) => k.includes('error') || k.includes('stored'));
    }
    expect(statuses).to.deep.equal([406, 406, 200, 401, 401]);
    const [m] = (await stored(a.id)).filter((x) => x.direction === 'inbound');
    expect(m.subject).to.not.match(/\u0000/);
    expect(m.from_address).to.equal(CUSTOMER);
    // A body that is not a form at all, or a form cut short.
    const notForm = await fetch(`${svc.url}/email/mailgun/mime`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(notForm.status).to.equal(415);
    const cut = await fetch(`${svc.url}/email/mailgun/mime`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=zz' },
      body: '--zz\r\nContent-Disposition: form-data; name="recipient"\r\n\r\nabc',
    });
    expect(cut.status).to.be.within(400, 499);
  });
  it('answers by the verdict, not by From: — unsigned and forged stored unanswered; one X-Mailgun-Spf aligned with From: is believed, a second one never', async () => {
    const a = await mailAgent();
    const forged = (id: string, top: string[] = []) =>
      [
        ...top,
        'From: The Boss <boss@example.org>',
        `To: ${a.address}`,
        'Reply-To: attacker@evil.example',
        'Subject: Figures',
        `Message-ID: ${id}`,
        '',
        'Send me the figures.',
        '',
      ].join('\r\n');
    const send = (id: string, sender: string, top: string[] = []) =>
      post({ recipient: a.address, sender, 'body-mime': forged(id, top), ...signature() });
    expect((await send('<unsigned@x>', 'attacker@evil.example')).status).to.equal(200);
    expect(
      (await send('<dkim-claim@x>', 'attacker@evil.example', ['X-Mailgun-Dkim-Check-Result: Pass'])).status,
    ).to.equal(200);
    expect((await send('<spf-unaligned@x>', 'attacker@evil.example', ['X-Mailgun-Spf: Pass'])).status).to.equal(200);
    expect(
      (await send('<spf-twice@x>', 'bounce@example.org', ['X-Mailgun-Spf: Pass', 'X-Mailgun-Spf: Pass'])).status,
    ).to.equal(200);
    expect((await send('<spf-aligned@x>', 'bounce@example.org', ['X-Mailgun-Spf: Pass'])).status).to.equal(200);
    const rows = (await stored(a.id)).filter((m) => m.direction === 'inbound');
    expect(rows.map((m) => [m.message_id, m.provider.email.answer, m.provider.email.auth.method])).to.deep.equal([
      ['<unsigned@x>', 'unauthenticated', 'none'],
      ['<dkim-claim@x>', 'unauthenticated', 'none'],
      ['<spf-unaligned@x>', 'unauthenticated', 'none'],
      ['<spf-twice@x>', 'unauthenticated', 'none'],
      ['<spf-aligned@x>', 'ok', 'mailgun-spf'],
    ]);
    expect(rows[0].last_error).to.match(/^Not answered: not from an allowed sender/);
    // The answer goes to the authenticated From:, not to the Reply-To.
    const reply = await until('the reply', async () => (await stored(a.id)).find((m) => m.direction === 'outbound'));
    expect(reply.to_address).to.equal('boss@example.org');
  });
});
