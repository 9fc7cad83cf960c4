import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { selfSignedCert } from '../helpers/cimd-server.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { until } from '../helpers/until.js';

// STARTTLS on the SMTP listener from the settings an operator writes (SMTP_TLS_CERT and
// SMTP_TLS_KEY name PEM files): a sender that requires TLS delivers, and the stored message says
// it came encrypted.

describe('e2e: email over STARTTLS from SMTP_TLS_CERT / SMTP_TLS_KEY', function () {
  this.timeout(120_000);
  let svc: E2eService | undefined;
  let dir: string | undefined;

  after(async () => {
    await svc?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('upgrades with the configured certificate and records the delivery as secure', async function () {
    const cert = selfSignedCert();
    if (!cert) this.skip();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-smtp-tls-'));
    fs.writeFileSync(path.join(dir, 'cert.pem'), cert.cert);
    fs.writeFileSync(path.join(dir, 'key.pem'), cert.key);
    svc = await startE2eService('email_tls', {
      env: {
        SMTP_PORT: '0',
        MAIL_DOMAIN: 'tls.example.test',
        SMTP_TLS_CERT: path.join(dir, 'cert.pem'),
        SMTP_TLS_KEY: path.join(dir, 'key.pem'),
      },
    });
    const agent = (await svc.gql('mutation { createAgent(input: {name: "TLS", instructions: "x"}) { id } }'))
      .createAgent.id as string;
    await svc.gql('mutation($a: ID!) { setSurface(agentId: $a, surface: EMAIL, enabled: true) { id } }', { a: agent });
    await svc.gql(
      'mutation($a: ID!) { addChannel(agentId: $a, input: {kind: EMAIL, address: "secure@tls.example.test", handler: {script: "return null;"}}) { id } }',
      { a: agent },
    );

    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port: svc.smtpPort!,
      secure: false,
      requireTLS: true,
      tls: { ca: cert.cert, servername: 'localhost' },
    });
    const info = await client.sendMail({
      from: 'carol@customer.example',
      to: 'secure@tls.example.test',
      subject: 'private',
      text: 'over TLS',
    });
    client.close();
    expect(info.response).to.match(/^250 /);
    const m = await until('the stored message', async () =>
      svc!.service.db('messages').where({ agent_id: agent }).first(),
    );
    expect(m.provider.email.envelope).to.include({ secure: true, mailFrom: 'carol@customer.example' });
  });
});
