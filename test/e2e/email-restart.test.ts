import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { freePort } from '../faults/support.js';
import { databaseEnv, graphqlClient, startService, type Started } from '../helpers/process.js';
import { startSmtpSink } from '../helpers/smtp-sink.js';
import { until } from '../helpers/until.js';
import { dataDirWithDatabase } from '../helpers/embedded-template.js';

// An email acknowledged with 250 is never lost (docs/decisions.md §32): the service is started as
// `npm start` starts it, takes a message while it answers nothing (WEBHOOK_WORKERS=0: this instance
// only receives), is killed with SIGKILL between the 250 and the run, and answers the message
// after the restart on the same data. The listener sits behind a trusted relay here
// (SMTP_TRUSTED_RELAYS: loopback), whose Authentication-Results vouch for the sender. Both databases.

const ADMIN_TOKEN = 'email-restart-admin-token-0123456789';
const DOMAIN = 'restart.example.test';

describe('e2e: an accepted email survives SIGKILL between the 250 and the run', function () {
  this.timeout(300_000);

  it('answers after the restart, once', async () => {
    const sink = await startSmtpSink();
    const database = await databaseEnv('email_restart');
    const dataDir = await dataDirWithDatabase('aes-email-restart-');
    const smtpPort = await freePort();
    const env = (workers: number) => ({
      ...database.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      SMTP_PORT: String(smtpPort),
      MAIL_DOMAIN: DOMAIN,
      SMTP_URL: sink.url,
      WEBHOOK_WORKERS: String(workers),
      SMTP_TRUSTED_RELAYS: '127.0.0.1, ::1',
    });
    // What the relay in front of the listener wrote (its authserv-id is MAIL_DOMAIN by default).
    const headers = { 'Authentication-Results': `${DOMAIN}; spf=pass smtp.mailfrom=bob@customer.example; dkim=none` };
    let server: Started | undefined;
    try {
      server = await startService(env(0));
      const gql = graphqlClient(() => server!.url, ADMIN_TOKEN);
      // `server` is read at each call: after the restart, the same client talks to the new process.
      const agent = (await gql('mutation { createAgent(input: {name: "Restart", instructions: "x"}) { id } }'))
        .createAgent.id as string;
      await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: EMAIL, enabled: true) { id } }', { a: agent });
      await gql(
        'mutation($a: ID!) { addChannel(agentId: $a, input: {kind: EMAIL, address: "desk@restart.example.test", handler: {script: "return \\"answered after the restart\\";"}}) { id } }',
        { a: agent },
      );

      const client = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
      const info = await client.sendMail({
        from: 'bob@customer.example',
        to: 'desk@restart.example.test',
        subject: 'Still there?',
        text: 'hello',
        messageId: '<kill-1@customer.example>',
        headers,
      });
      client.close();
      expect(info.response).to.match(/^250 /);

      const victim = server;
      victim.child.kill('SIGKILL');
      await new Promise((r) =>
        victim.child.exitCode !== null || victim.child.signalCode !== null ? r(null) : victim.child.once('exit', r),
      );
      expect(sink.received, 'nothing was answered before the kill').to.have.length(0);

      server = await startService(env(2));
      const [reply] = await until('the answer after the restart', async () =>
        sink.received.length ? sink.received : undefined,
      );
      expect(reply!.mail.text?.trim()).to.equal('answered after the restart');
      expect(reply!.mail.inReplyTo).to.equal('<kill-1@customer.example>');
      // Delivered once more by a sender that never saw the 250 (it was cut off): stored once, answered once.
      const again = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
      await again.sendMail({
        from: 'bob@customer.example',
        to: 'desk@restart.example.test',
        subject: 'Still there?',
        text: 'hello',
        messageId: '<kill-1@customer.example>',
        headers,
      });
      again.close();
      const ws = (await gql('mutation { createWorkspaceApiKey(name: "ws", scopes: [WORKSPACE_READ]) { key } }'))
        .createWorkspaceApiKey.key as string;
      const list = (await (
        await fetch(`${server.url}/workspaceapi/agents/${agent}/messages`, {
          headers: { authorization: `Bearer ${ws}` },
        })
      ).json()) as { totalCount: number };
      expect(list.totalCount).to.equal(2);
      expect(sink.received).to.have.length(1);
    } finally {
      if (server && server.child.exitCode === null) await server.stop();
      await sink.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
