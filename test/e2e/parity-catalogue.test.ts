import { expect } from 'chai';
import nodemailer from 'nodemailer';
import type { CatalogueKey } from '../../src/domain/error-catalogue.js';
import {
  a2a,
  BIG,
  chat,
  httpAnswer,
  jsonRpcAnswer,
  mcpBody,
  mcpPost,
  openAi,
  openAiAnswer,
  sms,
  toolCall,
  type Subject,
} from '../helpers/catalogue-calls.js';
import { createAgent, gqlOk, h } from '../helpers/harness.js';
import { useFakeModelWorkspace } from '../helpers/runtime.js';
import { addHttpEndpoint, call, createAgentKey, httpApiPath, type Reply } from '../helpers/surface-calls.js';

// Parity of the error catalogue (src/domain/error-catalogue.ts): a row per catalogue entry per
// surface that can be driven to it from outside, asserting that protocol's encoding. Entries a
// surface cannot produce, or that need a fault to provoke (UNAVAILABLE: a database down; CONFLICT:
// no agent surface raises it), are pinned per encoder in test/unit/error-encoders.test.ts, as are
// the Mailgun answers (the harness runs no Mailgun intake; test/e2e/mailgun.test.ts drives them).

const ON = ['HTTP_API', 'MCP', 'OPENAI', 'A2A', 'SMS', 'EMAIL', 'WIDGET', 'WEBHOOKS', 'DOCUMENT_API'];

type Row = [surface: string, key: CatalogueKey, provoke: (s: Subject) => Promise<Reply>, expect: (r: Reply) => void];

const ROWS: Row[] = [
  // HTTP API (DESIGN §6 body)
  [
    'HTTP API',
    'INVALID',
    (s) => call('POST', httpApiPath(s.agent, 'double'), { key: s.key, json: { n: 1, note: 'forbidden word' } }),
    httpAnswer(400),
  ],
  [
    'HTTP API',
    'UNAUTHENTICATED',
    (s) => call('POST', httpApiPath(s.agent, 'double'), { key: 'nope', json: {} }),
    httpAnswer(401),
  ],
  [
    'HTTP API',
    'FORBIDDEN',
    (s) => call('POST', httpApiPath(s.off, 'double'), { key: s.offKey, json: {} }),
    httpAnswer(403),
  ],
  [
    'HTTP API',
    'NOT_FOUND',
    (s) => call('POST', httpApiPath(s.agent, 'nothing'), { key: s.key, json: {} }),
    httpAnswer(404),
  ],
  [
    'HTTP API',
    'METHOD_NOT_ALLOWED',
    (s) => call('GET', httpApiPath(s.agent, 'double'), { key: s.key }),
    httpAnswer(405, (r) => expect(r.headers.get('allow')).to.equal('POST')),
  ],
  [
    'HTTP API',
    'PAYLOAD_TOO_LARGE',
    (s) => call('POST', httpApiPath(s.agent, 'double'), { key: s.key, raw: BIG }),
    httpAnswer(413),
  ],
  [
    'HTTP API',
    'UNSUPPORTED_MEDIA_TYPE',
    (s) => call('POST', httpApiPath(s.agent, 'double'), { key: s.key, raw: 'n=1', type: 'text/plain' }),
    httpAnswer(415),
  ],
  [
    'HTTP API',
    'RUN_FAILED',
    (s) => call('POST', httpApiPath(s.agent, 'fail'), { key: s.key, json: {} }),
    httpAnswer(500, (r) => expect(r.headers.get('x-run-id')).to.match(/\S/)),
  ],
  // OpenAI-compatible API (OpenAI's error object)
  [
    'OpenAI',
    'INVALID',
    (s) => openAi(s, 'the forbidden word'),
    openAiAnswer(400, 'invalid_request_error', 'guardrail_blocked'),
  ],
  [
    'OpenAI',
    'UNAUTHENTICATED',
    (s) => openAi(s, 'hi', 'nope'),
    openAiAnswer(401, 'authentication_error', 'invalid_api_key'),
  ],
  [
    'OpenAI',
    'FORBIDDEN',
    (s) => openAi(s, 'hi', s.offKey, s.off),
    openAiAnswer(403, 'permission_error', 'surface_disabled'),
  ],
  [
    'OpenAI',
    'NOT_FOUND',
    (s) => call('GET', `/agents/${s.agent}/v1/nothing`, { bearer: s.key }),
    openAiAnswer(404, 'invalid_request_error', 'not_found'),
  ],
  [
    'OpenAI',
    'PAYLOAD_TOO_LARGE',
    (s) => call('POST', `/agents/${s.agent}/v1/chat/completions`, { bearer: s.key, raw: BIG }),
    openAiAnswer(413, 'invalid_request_error', 'request_too_large'),
  ],
  [
    'OpenAI',
    'UNSUPPORTED_MEDIA_TYPE',
    (s) => call('POST', `/agents/${s.agent}/v1/chat/completions`, { bearer: s.key, raw: 'x', type: 'text/plain' }),
    openAiAnswer(415, 'invalid_request_error', 'unsupported_media_type'),
  ],
  [
    'OpenAI',
    'RUN_FAILED',
    (s) => (s.fake.enqueue({ status: 400 }), openAi(s, 'hi')),
    openAiAnswer(500, 'server_error', 'run_failed'),
  ],
  // A2A JSON-RPC (refusals before JSON-RPC are the §6 HTTP answer)
  ['A2A', 'INVALID', (s) => a2a(s, { n: 1, note: 'forbidden word' }), jsonRpcAnswer(-32602)],
  ['A2A', 'UNAUTHENTICATED', (s) => a2a(s, { n: 1 }, 'nope'), httpAnswer(401)],
  ['A2A', 'FORBIDDEN', (s) => a2a(s, { n: 1 }, s.offKey, s.off), httpAnswer(403)],
  ['A2A', 'NOT_FOUND', (s) => call('GET', `/agents/${s.agent}/a2a/rest/nothing`, { bearer: s.key }), httpAnswer(404)],
  [
    'A2A',
    'PAYLOAD_TOO_LARGE',
    (s) => call('POST', `/agents/${s.agent}/a2a`, { bearer: s.key, raw: BIG }),
    httpAnswer(413),
  ],
  // MCP (JSON-RPC errors and tool errors inside; refusals before JSON-RPC are the §6 HTTP answer)
  [
    'MCP',
    'INVALID',
    (s) => mcpPost(s, toolCall('double', { n: 'not a number' })),
    // Arguments against the schema are a tool error the model reads (MCP 2025-11-25, SEP-1303).
    (r) => expect(mcpBody(r).result, r.text).to.deep.include({ isError: true }),
  ],
  [
    'MCP',
    'NOT_FOUND',
    (s) => mcpPost(s, toolCall('nothing', {})),
    (r) => expect(mcpBody(r).error, r.text).to.deep.include({ code: -32602 }),
  ],
  [
    'MCP',
    'FORBIDDEN',
    (s) => call('POST', `/agents/${s.off}/mcp`, { key: s.offKey, json: toolCall('double', {}) }),
    httpAnswer(403),
  ],
  ['MCP', 'UNAUTHENTICATED', (s) => mcpPost(s, toolCall('double', { n: 1 }), 'nope'), httpAnswer(401)],
  [
    'MCP',
    'METHOD_NOT_ALLOWED',
    (s) => call('GET', `/agents/${s.agent}/mcp`, { key: s.key }),
    httpAnswer(405, (r) => expect(r.headers.get('allow')).to.equal('POST')),
  ],
  [
    'MCP',
    'PAYLOAD_TOO_LARGE',
    (s) => call('POST', `/agents/${s.agent}/mcp`, { key: s.key, raw: BIG }),
    httpAnswer(413),
  ],
  // SMS (a Twilio-compatible provider's callback)
  ['SMS', 'UNAUTHENTICATED', (s) => sms(s, s.agent, 'bad-signature'), httpAnswer(401)],
  ['SMS', 'NOT_FOUND', (s) => sms(s, 'no-such-agent', ''), httpAnswer(404)],
  ['SMS', 'FORBIDDEN', (s) => sms(s, s.off, ''), httpAnswer(403)],
  // Widget chat (refusals before the stream opens are the §6 HTTP answer)
  ['Chat', 'INVALID', (s) => chat(s, 'the forbidden word'), httpAnswer(400)],
  ['Chat', 'UNAUTHENTICATED', (s) => chat(s, 'hi', 'nope'), httpAnswer(401)],
  ['Chat', 'FORBIDDEN', (s) => chat(s, 'hi', s.offKey, s.off), httpAnswer(403)],
  [
    'Chat',
    'UNSUPPORTED_MEDIA_TYPE',
    (s) => call('POST', `/agents/${s.agent}/chat`, { key: s.key, raw: 'hi', type: 'text/plain' }),
    httpAnswer(415),
  ],
  // Webhooks (keyless: the integration and its signature)
  ['Webhooks', 'NOT_FOUND', (s) => call('POST', `/agents/${s.agent}/webhook/nothing`, { json: {} }), httpAnswer(404)],
  // Document API
  [
    'Document API',
    'NOT_FOUND',
    (s) => call('GET', `/agents/${s.agent}/documents/nothing`, { key: s.key }),
    httpAnswer(404),
  ],
  // Limits last: they refuse everything after them.
  [
    'HTTP API',
    'LIMIT_EXCEEDED',
    (s) => call('POST', httpApiPath(s.agent, 'double'), { key: s.key, json: { n: 1 } }),
    httpAnswer(429, (r) => {
      expect(r.json.reason).to.equal('daily_credit_limit');
      expect(r.headers.get('retry-after')).to.match(/^\d+$/);
    }),
  ],
  ['OpenAI', 'LIMIT_EXCEEDED', (s) => openAi(s, 'hi'), openAiAnswer(429, 'rate_limit_error', 'daily_credit_limit')],
  [
    'A2A',
    'LIMIT_EXCEEDED',
    (s) => a2a(s, { n: 1 }),
    (r) => {
      jsonRpcAnswer(-32000)(r);
      expect(r.json.error.data[0]).to.include({ reason: 'daily_credit_limit' });
      expect(r.headers.get('retry-after')).to.match(/^\d+$/);
    },
  ],
  [
    'MCP',
    'LIMIT_EXCEEDED',
    (s) => mcpPost(s, toolCall('double', { n: 1 })),
    httpAnswer(429, (r) => expect(r.json.reason).to.equal('daily_credit_limit')),
  ],
];

const mailbox = (s: Subject) => `catalogue-${s.agent.toLowerCase().replace(/[^a-z0-9]/g, '')}@harness.example.test`;
const SCHEMA = { type: 'object', properties: { n: { type: 'number' }, note: { type: 'string' } }, required: ['n'] };
const DOUBLE = 'return { doubled: input.n * 2 };';

describe('parity: every catalogue entry on every surface that can produce it', function () {
  this.timeout(60_000);
  const s = {} as Subject;
  useFakeModelWorkspace(
    async ({ fake }) => void (s.fake = fake),
    async ({ ws }) => {
      const t = ws.adminToken;
      s.agent = await createAgent(t, { name: 'Catalogue', defaultModel: 'test-model' });
      s.key = await createAgentKey(t, s.agent);
      s.off = await createAgent(t, { name: 'Catalogue off', defaultModel: 'test-model' });
      s.offKey = await createAgentKey(t, s.off);
      for (const surface of ON) {
        await gqlOk(t, `mutation($a: ID!) { setSurface(agentId: $a, surface: ${surface}, enabled: true) { id } }`, {
          a: s.agent,
        });
        await gqlOk(t, `mutation($a: ID!) { setSurface(agentId: $a, surface: ${surface}, enabled: false) { id } }`, {
          a: s.off,
        });
      }
      await gqlOk(
        t,
        'mutation($a: ID!) { setGuardrails(agentId: $a, input: { blockedInputPatterns: ["forbidden word"] }) { id } }',
        { a: s.agent },
      );
      await addHttpEndpoint(t, s.agent, { path: 'double', handler: { script: DOUBLE } });
      await addHttpEndpoint(t, s.agent, { path: 'fail', handler: { script: 'throw new Error("broken on purpose");' } });
      await gqlOk(t, 'mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
        a: s.agent,
        i: { name: 'double', description: 'Doubles n', handler: { script: DOUBLE }, inputSchema: SCHEMA },
      });
      setLimit = () =>
        gqlOk(t, 'mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: s.agent });
      await gqlOk(t, 'mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { id } }', {
        a: s.agent,
        i: { kind: 'EMAIL', address: mailbox(s), handler: { script: 'return "x";' } },
      });
    },
  );
  let setLimit: () => Promise<unknown> = async () => undefined;
  let limited = false;

  for (const [surface, key, provoke, check] of ROWS)
    it(`${surface}: ${key}`, async () => {
      if (key === 'LIMIT_EXCEEDED' && !limited) {
        await setLimit();
        limited = true;
      }
      check(await provoke(s));
    });

  it('email (SMTP): bytes that are not an email are INVALID (554 5.6.0), an unknown mailbox NOT_FOUND (550 5.1.1)', async () => {
    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port: h().smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    const send = (to: string, raw: string) =>
      client.sendMail({ envelope: { from: 'x@customer.example', to: [to] }, raw: Buffer.from(raw) }).then(
        () => null,
        (e: { responseCode?: number; response?: string }) => e,
      );
    try {
      const garbage = await send(mailbox(s), '\r\njust text, no header section\r\n');
      expect([garbage?.responseCode, garbage?.response]).to.satisfy(
        ([c, t]: [number, string]) => c === 554 && / 5\.6\.0 /.test(t),
      );
      const unknown = await send('nobody-at-all@harness.example.test', 'Subject: x\r\n\r\nhello\r\n');
      expect([unknown?.responseCode, unknown?.response]).to.satisfy(
        ([c, t]: [number, string]) => c === 550 && / 5\.1\.1 /.test(t),
      );
    } finally {
      client.close();
    }
  });
});
