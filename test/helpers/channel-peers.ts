import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import twilio from 'twilio';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

// The peers of a service's email and SMS channels for tests that only need them to work (the
// traces test): a smarthost, a stand-in of Twilio's Messages API that keeps each request's
// headers, a loopback relay that vouches for its senders, and Twilio's signature of a callback.

export const PEER_DOMAIN = 'agents.traces.test';
const BASE_URL = 'https://traces.example.test';
const ACCOUNT = 'AC00000000000000000000000000traces';
const TOKEN = 'twilio-auth-token-for-traces';

/** One request the Messages API stand-in took. */
export interface ApiRequest {
  headers: http.IncomingHttpHeaders;
  form: Record<string, string>;
}

export interface ChannelPeers {
  sink: SmtpSink;
  api: { url: string; requests: ApiRequest[] };
  /** The service's environment for them: the smarthost, the relay, the SMS provider. */
  env: Record<string, string>;
  /** Delivers an email to the listener as the trusted relay in front of it would (the sender vouched for). */
  deliver(smtpPort: number, mail: { from: string; to: string; subject: string; text: string }): Promise<void>;
  /** Posts an incoming text message to the service, signed as Twilio signs it. */
  text(
    serviceUrl: string,
    agentId: string,
    p: { from: string; to: string; body: string; sid: string },
  ): Promise<Response>;
  close(): Promise<void>;
}

type Gql = (query: string, variables?: Record<string, unknown>) => Promise<any>;

/** An agent answering on a channel of `kind` (its surface on, the messaging tools on). */
export async function channelAgent(
  gql: Gql,
  name: string,
  kind: 'EMAIL' | 'SMS',
  address: string,
  handler: Record<string, string>,
): Promise<string> {
  const a = (
    await gql('mutation($n: String!) { createAgent(input: { name: $n, defaultModel: "fake-model" }) { id } }', {
      n: name,
    })
  ).createAgent.id as string;
  await gql(`mutation($a: ID!) { setSurface(agentId: $a, surface: ${kind}, enabled: true) { id } }`, { a });
  await gql('mutation($a: ID!) { setCapabilities(agentId: $a, input: { messaging: true }) { id } }', { a });
  await gql('mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { id } }', {
    a,
    i: { kind, address, handler },
  });
  return a;
}

/** Starts the smarthost and the Messages API stand-in on loopback; `env` points a service at them. */
export async function startChannelPeers(): Promise<ChannelPeers> {
  const sink = await startSmtpSink();
  const requests: ApiRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        headers: req.headers,
        form: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))),
      });
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ sid: `SM${String(requests.length).padStart(32, '0')}`, status: 'queued' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    sink,
    api: { url, requests },
    env: {
      BASE_URL,
      SMTP_PORT: '0',
      MAIL_DOMAIN: PEER_DOMAIN,
      SMTP_URL: sink.url,
      SMTP_TRUSTED_RELAYS: '127.0.0.1, ::1',
      TWILIO_ACCOUNT_SID: ACCOUNT,
      TWILIO_AUTH_TOKEN: TOKEN,
      TWILIO_API_BASE: url,
    },
    async deliver(smtpPort, mail) {
      const client = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
      const sender = mail.from.slice(mail.from.indexOf('@') + 1);
      // What the relay in front of the listener wrote (its authserv-id is MAIL_DOMAIN by default).
      const headers = { 'Authentication-Results': `${PEER_DOMAIN}; spf=pass smtp.mailfrom=${mail.from}; dkim=none` };
      try {
        await client.sendMail({ ...mail, headers, messageId: `<${Date.now()}@${sender}>` });
      } finally {
        client.close();
      }
    },
    text(serviceUrl, agentId, p) {
      const path = `/agents/${agentId}/sms`;
      const params = { MessageSid: p.sid, AccountSid: ACCOUNT, From: p.from, To: p.to, Body: p.body };
      const signature = twilio.getExpectedTwilioSignature(TOKEN, `${BASE_URL}${path}`, params);
      return fetch(`${serviceUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
        body: new URLSearchParams(params),
      });
    },
    async close() {
      await sink.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
