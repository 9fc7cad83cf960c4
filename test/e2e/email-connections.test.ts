import { expect } from 'chai';
import nodemailer from 'nodemailer';
import { rawSmtp, type RawSmtp } from '../helpers/smtp-client.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// The SMTP listener's connection bounds (docs/security.md, "Round four: SMTP connection bounds"),
// with small settings: in all (SMTP_MAX_CONNECTIONS), per remote address
// (SMTP_MAX_CONNECTIONS_PER_ADDRESS), idle time (SMTP_IDLE_TIMEOUT_SECONDS) and a session's whole
// time (SMTP_SESSION_MAX_SECONDS) — each reached is answered 421 and the connection closed. Loopback
// addresses 127.0.0.x stand for different remote hosts. Both databases.

const DOMAIN = 'bounds.example.test';

describe('e2e: SMTP connection bounds', function () {
  this.timeout(120_000);
  let svc: E2eService;
  const open: RawSmtp[] = [];

  /** A connection from `from`, with the server's first line (its 220 greeting or its 421). */
  async function connect(from: string): Promise<{ c: RawSmtp; first: string }> {
    const c = await rawSmtp(svc.smtpPort!, from);
    open.push(c);
    return { c, first: await c.next() };
  }

  const closeAll = async () => {
    const all = open.splice(0);
    all.forEach((c) => c.end());
    await Promise.all(all.map((c) => c.closed));
    // The listener learns of each close on its next turn.
    await new Promise((r) => setTimeout(r, 100));
  };

  before(async () => {
    svc = await startE2eService('email_bounds', {
      env: {
        SMTP_PORT: '0',
        MAIL_DOMAIN: DOMAIN,
        SMTP_MAX_CONNECTIONS: '4',
        SMTP_MAX_CONNECTIONS_PER_ADDRESS: '2',
        SMTP_IDLE_TIMEOUT_SECONDS: '1.5',
        SMTP_SESSION_MAX_SECONDS: '3',
      },
    });
  });
  afterEach(closeAll);
  after(async () => svc?.stop());

  it('refuses a third connection from one address with 421 and closes it; other addresses, and the same one after a close, are taken', async () => {
    expect((await connect('127.0.0.1')).first).to.match(/^220 /);
    const second = await connect('127.0.0.1');
    expect(second.first).to.match(/^220 /);
    const third = await connect('127.0.0.1');
    expect(third.first).to.equal('421 4.7.0 Too many connections from your address, try again later');
    await third.c.closed;
    expect((await connect('127.0.0.2')).first).to.match(/^220 /);

    second.c.end();
    await second.c.closed;
    await new Promise((r) => setTimeout(r, 100));
    expect((await connect('127.0.0.1')).first, 'the count went down with the close').to.match(/^220 /);
  });

  it('refuses a connection past SMTP_MAX_CONNECTIONS with 421 and closes it', async () => {
    for (const from of ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4'])
      expect((await connect(from)).first).to.match(/^220 /);
    const fifth = await connect('127.0.0.5');
    expect(fifth.first).to.match(/^421 .*Too many connected clients/);
    await fifth.c.closed;
  });

  it('closes a silent connection after SMTP_IDLE_TIMEOUT_SECONDS with 421', async () => {
    const { c, first } = await connect('127.0.0.6');
    expect(first).to.match(/^220 /);
    const t0 = Date.now();
    expect(await c.next(5_000)).to.match(/^421 .*Timeout/);
    await c.closed;
    expect(Date.now() - t0).to.be.within(1_200, 2_900);
  });

  it('ends a session kept busy with NOOPs after SMTP_SESSION_MAX_SECONDS with 421', async () => {
    const { c, first } = await connect('127.0.0.7');
    expect(first).to.match(/^220 /);
    const t0 = Date.now();
    const noop = setInterval(() => c.send('NOOP'), 400);
    try {
      let line: string;
      do line = await c.next(6_000);
      while (line.startsWith('250') && Date.now() - t0 < 8_000);
      expect(line).to.equal('421 4.4.2 Session time limit reached, closing connection');
      await c.closed;
      // The NOOPs kept it past the 1.5 s idle timeout; the session bound ended it at 3 s.
      expect(Date.now() - t0).to.be.within(2_700, 4_500);
    } finally {
      clearInterval(noop);
    }
  });

  it('still takes a message within the bounds', async () => {
    const agent = (await svc.gql('mutation { createAgent(input: {name: "Bounds", instructions: "x"}) { id } }'))
      .createAgent.id as string;
    await svc.gql('mutation($a: ID!) { setSurface(agentId: $a, surface: EMAIL, enabled: true) { id } }', { a: agent });
    await svc.gql(
      `mutation($a: ID!) { addChannel(agentId: $a, input: {kind: EMAIL, address: "desk@${DOMAIN}", handler: {script: "return null;"}}) { id } }`,
      { a: agent },
    );
    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port: svc.smtpPort!,
      secure: false,
      ignoreTLS: true,
    });
    try {
      const info = await client.sendMail({
        from: 'ada@customer.example',
        to: `desk@${DOMAIN}`,
        subject: 'Hello',
        text: 'hi',
      });
      expect(info.response).to.match(/^250 /);
    } finally {
      client.close();
    }
  });
});
