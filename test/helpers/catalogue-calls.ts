import { expect } from 'chai';
import twilio from 'twilio';
import { h, HARNESS_TWILIO } from './harness.js';
import type { FakeOpenAi } from './openai-server.js';
import { call, type Reply } from './surface-calls.js';

// The calls and answer checks of the error catalogue's parity rows (test/e2e/parity-catalogue.test.ts).

export interface Subject {
  agent: string;
  key: string;
  /** An agent whose surfaces are all off. */
  off: string;
  offKey: string;
  fake: FakeOpenAi;
}

export const BIG = JSON.stringify({ text: 'x'.repeat(1024 * 1024 + 10) });

export const mcpPost = (s: Subject, body: unknown, key = s.key) =>
  call('POST', `/agents/${s.agent}/mcp`, {
    key,
    json: body,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
  });
export const toolCall = (name: string, args: unknown) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});
export const openAi = (s: Subject, content: string, key = s.key, agent = s.agent) =>
  call('POST', `/agents/${agent}/v1/chat/completions`, {
    bearer: key,
    json: { model: agent, messages: [{ role: 'user', content }] },
  });
export const a2a = (s: Subject, data: unknown, key = s.key, agent = s.agent) =>
  call('POST', `/agents/${agent}/a2a`, {
    bearer: key,
    headers: { 'a2a-version': '1.0' },
    json: {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: {
          messageId: `m-${Math.random()}`,
          role: 'ROLE_USER',
          parts: [{ data }],
          metadata: { skillId: 'double' },
        },
      },
    },
  });
export const sms = (s: Subject, agent: string, signature: string) => {
  const params = {
    MessageSid: `SMcat${Math.random()}`,
    AccountSid: HARNESS_TWILIO.accountSid,
    From: '+14155550199',
    To: '+15550000001',
    Body: 'hi',
  };
  const path = `/agents/${agent}/sms`;
  const sig =
    signature || twilio.getExpectedTwilioSignature(HARNESS_TWILIO.authToken, `${h().config.baseUrl}${path}`, params);
  return call('POST', path, {
    raw: new URLSearchParams(params).toString(),
    type: 'application/x-www-form-urlencoded',
    headers: { 'x-twilio-signature': sig },
  });
};

/** The §6 HTTP answer of an entry. */
export const httpAnswer =
  (status: number, extra: (r: Reply) => void = () => {}) =>
  (r: Reply) => {
    expect(r.status, r.text).to.equal(status);
    expect(r.json.error, r.text).to.be.a('string').and.not.equal('');
    extra(r);
  };
/** OpenAI's error object of an entry. */
export const openAiAnswer = (status: number, type: string, code: string | null) => (r: Reply) => {
  expect(r.status, r.text).to.equal(status);
  expect(r.json.error).to.include({ type, code });
  expect(r.json.error.message).to.be.a('string').and.not.equal('');
};
export const jsonRpcAnswer = (code: number) => (r: Reply) => {
  expect(r.status, r.text).to.equal(200);
  expect(r.json.error.code, r.text).to.equal(code);
};
/** The JSON-RPC answer inside an MCP reply (JSON, or one SSE `data:` record). */
export const mcpBody = (r: Reply) => r.json ?? JSON.parse(/^data: (.*)$/m.exec(r.text)![1]!);

/** A widget chat message (the WIDGET surface's chat endpoint), asking for one JSON answer. */
export const chat = (s: Subject, message: string, key = s.key, agent = s.agent) =>
  call('POST', `/agents/${agent}/chat`, { key, json: { message }, headers: { accept: 'application/json' } });
