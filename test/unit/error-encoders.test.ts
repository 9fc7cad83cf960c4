import { expect } from 'chai';
import {
  CATALOGUE_KEYS,
  ERROR_CATALOGUE,
  refusalOf,
  refusalOfKey,
  type CatalogueKey,
  type Refusal,
} from '../../src/domain/error-catalogue.js';
import {
  Conflict,
  DomainError,
  Forbidden,
  Invalid,
  LimitExceeded,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  RunFailed,
  Unauthenticated,
  Unavailable,
  UnsupportedMediaType,
} from '../../src/domain/errors.js';
import { GuardrailBlocked } from '../../src/domain/runtime/guardrails.js';
import { encodeA2aJsonRpcError, encodeA2aRestError } from '../../src/surfaces/a2a/a2a.errors.js';
import { encodeMailgunAnswer } from '../../src/surfaces/email/mailgun.errors.js';
import { encodeSmtpReply } from '../../src/surfaces/email/smtp.errors.js';
import { encodeMcpResourceError, encodeMcpToolError } from '../../src/surfaces/mcp/mcp.errors.js';
import { encodeOpenAiError, openAiErrorOfStatus } from '../../src/surfaces/openai/openai.errors.js';
import { encodeHttpError } from '../../src/surfaces/shared/http.errors.js';
import { encodeTwilioAnswer } from '../../src/surfaces/sms/twilio.errors.js';

// Every protocol's encoder × every catalogue entry, pinned: what each refusal looks like on each
// wire. The e2e parity rows (test/e2e/parity-catalogue.test.ts) provoke the entries a surface can
// be driven to; this table also covers those that cannot be provoked from outside (UNAVAILABLE
// needs a database down; CONFLICT and RUN_FAILED do not arise on some surfaces).

/** One occurrence of each entry, with the facts that kind carries. */
const SAMPLES: Record<CatalogueKey, DomainError> = {
  INVALID: new Invalid('messages.0.content: required', 'messages.0.content'),
  UNAUTHENTICATED: new Unauthenticated(),
  FORBIDDEN: new Forbidden('The MCP surface is off'),
  NOT_FOUND: new NotFound('Tool', 'nope'),
  METHOD_NOT_ALLOWED: new MethodNotAllowed(['POST']),
  CONFLICT: new Conflict('Path taken', 'path'),
  PAYLOAD_TOO_LARGE: new PayloadTooLarge(),
  UNSUPPORTED_MEDIA_TYPE: new UnsupportedMediaType(),
  LIMIT_EXCEEDED: new LimitExceeded('daily_credit_limit', 3600, 'Daily credit limit reached'),
  RUN_FAILED: new RunFailed('run_1', 'script_error', 'The script threw'),
  UNAVAILABLE: new Unavailable('Database unavailable', 7),
};
const r = (key: CatalogueKey): Refusal => refusalOf(SAMPLES[key]);

/** The expected answer of every encoder for every entry (a row per entry, a column per protocol). */
const EXPECTED: Record<
  CatalogueKey,
  {
    http: [number, Record<string, string>];
    openAi: [string, string | null, string | null];
    a2a: number;
    mcpTool: string | number;
    mcpRead: number;
    smtp: [number, string];
    mailgun: number;
  }
> = {
  INVALID: {
    http: [400, {}],
    openAi: ['invalid_request_error', null, 'messages[0].content'],
    a2a: -32602,
    mcpTool: 'tool',
    mcpRead: -32602,
    smtp: [554, '5.6.0'],
    mailgun: 406,
  },
  UNAUTHENTICATED: {
    http: [401, {}],
    openAi: ['authentication_error', 'invalid_api_key', null],
    a2a: -32603,
    mcpTool: 'tool',
    mcpRead: -32000,
    smtp: [451, '4.3.0'],
    mailgun: 401,
  },
  FORBIDDEN: {
    http: [403, {}],
    openAi: ['permission_error', 'surface_disabled', null],
    a2a: -32603,
    mcpTool: 'tool',
    mcpRead: -32000,
    smtp: [451, '4.3.0'],
    mailgun: 403,
  },
  NOT_FOUND: {
    http: [404, {}],
    openAi: ['invalid_request_error', 'not_found', null],
    a2a: -32603,
    mcpTool: -32602,
    mcpRead: -32000,
    smtp: [550, '5.1.1'],
    mailgun: 406,
  },
  METHOD_NOT_ALLOWED: {
    http: [405, { Allow: 'POST' }],
    openAi: ['invalid_request_error', 'method_not_allowed', null],
    a2a: -32603,
    mcpTool: 'tool',
    mcpRead: -32000,
    smtp: [451, '4.3.0'],
    mailgun: 405,
  },
  CONFLICT: {
    http: [409, {}],
    openAi: ['invalid_request_error', null, 'path'],
    a2a: -32603,
    mcpTool: 'tool',
    mcpRead: -32000,
    smtp: [451, '4.3.0'],
    mailgun: 409,
  },
  PAYLOAD_TOO_LARGE: {
    http: [413, {}],
    openAi: ['invalid_request_error', 'request_too_large', null],
    a2a: -32602,
    mcpTool: 'tool',
    mcpRead: -32000,
    smtp: [552, '5.3.4'],
    mailgun: 413,
  },
  UNSUPPORTED_MEDIA_TYPE: {
    http: [415, {}],
    openAi: ['invalid_request_error', 'unsupported_media_type', null],
    a2a: -32602,
    mcpTool: 'tool',
    mcpRead: -32000,
    smtp: [451, '4.3.0'],
    mailgun: 415,
  },
  LIMIT_EXCEEDED: {
    http: [429, { 'Retry-After': '3600', RateLimit: '"daily_credit_limit";r=0;t=3600' }],
    openAi: ['rate_limit_error', 'daily_credit_limit', null],
    a2a: -32000,
    mcpTool: 'tool',
    mcpRead: -32000,
    smtp: [452, '4.2.2'],
    mailgun: 429,
  },
  RUN_FAILED: {
    http: [500, { 'X-Run-Id': 'run_1' }],
    openAi: ['server_error', 'run_failed', null],
    a2a: -32603,
    mcpTool: 'tool',
    mcpRead: -32000,
    smtp: [451, '4.3.0'],
    mailgun: 500,
  },
  UNAVAILABLE: {
    http: [503, { 'Retry-After': '7' }],
    openAi: ['service_unavailable_error', 'unavailable', null],
    a2a: -32603,
    mcpTool: 'tool',
    mcpRead: -32000,
    smtp: [451, '4.3.0'],
    mailgun: 503,
  },
};

describe('error catalogue and its protocol encoders', () => {
  it('defines each refusal kind once, with its code, HTTP status and retry rule', () => {
    expect(CATALOGUE_KEYS).to.have.members(Object.keys(SAMPLES));
    for (const key of CATALOGUE_KEYS) {
      const e = ERROR_CATALOGUE[key];
      expect(e.code).to.equal(key);
      expect(e.status, key).to.be.within(400, 599);
      expect(e.retryable, key).to.equal(e.retryAfterSeconds !== undefined);
    }
    expect(CATALOGUE_KEYS.filter((k) => ERROR_CATALOGUE[k].retryable)).to.have.members([
      'LIMIT_EXCEEDED',
      'UNAVAILABLE',
    ]);
  });

  it("reads an occurrence's facts: field and position, limit reason and retry time, allowed methods, run", () => {
    expect(r('INVALID')).to.include({ key: 'INVALID', status: 400, field: 'messages.0.content' });
    expect(refusalOf(new Invalid('bad', undefined, { line: 3, column: 7 })).position).to.deep.equal({
      line: 3,
      column: 7,
    });
    expect(r('LIMIT_EXCEEDED')).to.include({ reason: 'daily_credit_limit', retryAfterSeconds: 3600, retryable: true });
    expect(r('UNAVAILABLE')).to.include({ retryAfterSeconds: 7 });
    expect(r('METHOD_NOT_ALLOWED').allowed).to.deep.equal(['POST']);
    expect(r('RUN_FAILED')).to.include({ runId: 'run_1', runErrorKind: 'script_error' });
    expect(r('NOT_FOUND')).to.include({ id: 'nope' });
    expect(refusalOf(new GuardrailBlocked('Blocked', 'blockedInputPatterns'))).to.include({
      key: 'INVALID',
      guardrail: 'blockedInputPatterns',
    });
  });

  for (const key of Object.keys(EXPECTED) as CatalogueKey[]) {
    const want = EXPECTED[key];
    describe(key, () => {
      it('HTTP (DESIGN §6): status, headers, {error, reason?}', () => {
        const a = encodeHttpError(r(key));
        expect([a.status, a.headers]).to.deep.equal(want.http);
        expect(a.body).to.deep.equal(
          key === 'LIMIT_EXCEEDED'
            ? { error: SAMPLES[key].message, reason: 'daily_credit_limit' }
            : { error: SAMPLES[key].message },
        );
        // The HTTP+JSON binding of A2A and the SMS provider's callbacks answer as the agent surfaces do.
        expect(encodeA2aRestError(r(key))).to.deep.equal(a);
        expect(encodeTwilioAnswer(r(key))).to.deep.equal(a);
      });
      it("OpenAI: the error object's type, code and param", () => {
        const { error } = encodeOpenAiError(r(key));
        expect([error.type, error.code, error.param]).to.deep.equal(want.openAi);
        expect(error.message).to.equal(SAMPLES[key].message);
      });
      it('A2A JSON-RPC: the error code', () => {
        expect(encodeA2aJsonRpcError(r(key)).error.code).to.equal(want.a2a);
      });
      it('MCP: tools/call and resources/read', () => {
        const tool = encodeMcpToolError(r(key));
        expect(tool.kind === 'tool' ? 'tool' : tool.code).to.equal(want.mcpTool);
        expect(encodeMcpResourceError(r(key)).code).to.equal(want.mcpRead);
      });
      it('SMTP: reply code and enhanced status', () => {
        const reply = encodeSmtpReply(r(key));
        expect([reply.code, reply.text.split(' ')[0]]).to.deep.equal(want.smtp);
      });
      it('Mailgun: 406 for what a retry will not change, else the HTTP answer', () => {
        expect(encodeMailgunAnswer(r(key)).status).to.equal(want.mailgun);
      });
    });
  }

  it('OpenAI: a guardrail names itself; a limit names its reason and stops retries past a minute; a run names itself', () => {
    const g = encodeOpenAiError(refusalOf(new GuardrailBlocked('Blocked', 'blockedInputPatterns')));
    expect(g.error).to.deep.equal({
      message: 'Blocked',
      type: 'invalid_request_error',
      code: 'guardrail_blocked',
      param: null,
      guardrail: 'blockedInputPatterns',
    });
    expect(encodeOpenAiError(r('LIMIT_EXCEEDED')).headers).to.deep.equal({ 'x-should-retry': 'false' });
    const soon = new LimitExceeded('concurrency_limit', 1, 'Busy');
    expect(encodeOpenAiError(refusalOf(soon)).headers).to.deep.equal({});
    expect(encodeOpenAiError(r('RUN_FAILED')).error.run_id).to.equal('run_1');
    expect(openAiErrorOfStatus(500, 'Internal server error')).to.deep.equal({
      message: 'Internal server error',
      type: 'server_error',
      code: null,
      param: null,
    });
    expect(openAiErrorOfStatus(413, 'too big')).to.include({ code: 'request_too_large' });
    expect(openAiErrorOfStatus(429, 'slow down')).to.include({ code: 'rate_limit_exceeded' });
  });

  it('A2A JSON-RPC: a limit carries google.rpc.ErrorInfo and Retry-After', () => {
    expect(encodeA2aJsonRpcError(r('LIMIT_EXCEEDED'))).to.deep.equal({
      error: {
        code: -32000,
        message: 'Daily credit limit reached',
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'daily_credit_limit',
            domain: 'agent-exposure-service',
            metadata: { retryAfterSeconds: '3600' },
          },
        ],
      },
      headers: { 'Retry-After': '3600' },
    });
  });

  it('MCP: an unknown tool, bad arguments (a tool error the model reads, SEP-1303), and a limit saying when to try again', () => {
    expect(encodeMcpToolError(r('NOT_FOUND'))).to.deep.equal({
      kind: 'rpc',
      code: -32602,
      message: 'Unknown tool: nope',
    });
    expect(encodeMcpToolError(r('INVALID'))).to.deep.equal({ kind: 'tool', text: 'messages.0.content: required' });
    expect(encodeMcpResourceError(r('INVALID'))).to.deep.equal({
      kind: 'rpc',
      code: -32602,
      message: 'messages.0.content: required',
      data: { field: 'messages.0.content' },
    });
    expect(encodeMcpToolError(r('LIMIT_EXCEEDED'))).to.deep.equal({
      kind: 'tool',
      text: 'Daily credit limit reached Try again in 3600 s.',
    });
    expect(encodeMcpResourceError(r('UNAVAILABLE'))).to.deep.equal({
      kind: 'rpc',
      code: -32000,
      message: 'Database unavailable Try again in 7 s.',
      data: { retryAfterSeconds: 7 },
    });
  });

  it('every encoder answers a refusal made from the catalogue alone (no entry left unmapped)', () => {
    for (const key of CATALOGUE_KEYS) {
      const bare = refusalOfKey(key);
      for (const encode of [
        encodeHttpError,
        encodeOpenAiError,
        encodeA2aJsonRpcError,
        encodeA2aRestError,
        encodeMcpToolError,
        encodeMcpResourceError,
        encodeSmtpReply,
        encodeMailgunAnswer,
        encodeTwilioAnswer,
      ] as ((r: Refusal) => unknown)[])
        expect(encode(bare), `${encode.name}(${key})`).to.be.an('object');
    }
  });
});
