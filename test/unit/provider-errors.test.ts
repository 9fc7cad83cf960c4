import { APICallError, RetryError } from 'ai';
import { expect } from 'chai';
import { Writable } from 'node:stream';
import type { ResolvedModel } from '../../src/domain/models/language-model.ports.js';
import { urlPasswords, withoutCredentials } from '../../src/infra/credentials.js';
import { createLogger } from '../../src/infra/logger.js';
import { MAX_DETAIL_CHARS, providerFailure } from '../../src/infra/models/provider-errors.js';

// A model provider's error text reaches members (the activity log) and operators (the service log)
// only with credentials removed, and API-key callers not at all.

const model = (over: Partial<ResolvedModel> = {}): ResolvedModel => ({
  reference: 'house',
  provider: 'openai-compatible',
  model: 'fake-model',
  baseUrl: 'https://llm.example.test/v1',
  apiKey: 'sk-house-key-0123456789',
  inputPricePerMillion: 0,
  outputPricePerMillion: 0,
  acceptsImages: false,
  ...over,
});

const apiError = (statusCode: number, message: string, url = 'https://llm.example.test/v1/chat/completions') =>
  new APICallError({
    message,
    url,
    requestBodyValues: { prompt: 'hi' },
    statusCode,
    responseBody: message,
    isRetryable: statusCode >= 500,
  });

describe('credentials in text', () => {
  it('removes the userinfo of URLs, whatever the scheme, to the last @ before the host', () => {
    expect(withoutCredentials('at https://user:secret@llm.example.test/v1 now')).to.equal(
      'at https://[redacted]@llm.example.test/v1 now',
    );
    expect(withoutCredentials('postgres://app:p@ss@db:5432/x')).to.equal('postgres://[redacted]@db:5432/x');
    expect(withoutCredentials('"http://token@10.0.0.7:8080"')).to.equal('"http://[redacted]@10.0.0.7:8080"');
  });

  it('leaves URLs without userinfo and e-mail addresses in paths or queries alone', () => {
    const text = 'see https://llm.example.test/v1/models?owner=a@b.test and mail ops@example.test';
    expect(withoutCredentials(text)).to.equal(text);
  });

  it('removes bearer and basic tokens, key query parameters and provider keys', () => {
    expect(withoutCredentials('Authorization: Bearer abc.def-123')).to.equal('Authorization: Bearer [redacted]');
    expect(withoutCredentials('basic dXNlcjpzZWNyZXQ=')).to.equal('basic [redacted]');
    expect(withoutCredentials('GET /v1?key=AIzaSy123&alt=json')).to.equal('GET /v1?key=[redacted]&alt=json');
    expect(withoutCredentials('?api_key=abc&access_token=def')).to.equal('?api_key=[redacted]&access_token=[redacted]');
    expect(withoutCredentials('Incorrect API key provided: sk-proj-AbC123xyz987.')).to.equal(
      'Incorrect API key provided: [redacted].',
    );
    expect(withoutCredentials('key sk-ant-api03-abcdEFGH')).to.equal('key [redacted]');
  });

  it('removes known values wherever they appear, longest first; values under 4 characters are left', () => {
    expect(withoutCredentials('refused hunter22 (hunter22)', ['hunter22'])).to.equal('refused [redacted] ([redacted])');
    expect(withoutCredentials('a b c', ['b'])).to.equal('a b c');
    expect(withoutCredentials('x', [null, undefined, ''])).to.equal('x');
  });

  it("a URL's password, as written and decoded; the user name alone is no secret", () => {
    expect(urlPasswords('https://user:s%40cret@host/v1')).to.deep.equal(['s%40cret', 's@cret']);
    expect(urlPasswords('https://user@host/v1')).to.deep.equal([]);
    expect(urlPasswords('not a url')).to.deep.equal([]);
    expect(urlPasswords(null)).to.deep.equal([]);
  });
});

describe('provider failures', () => {
  it('an HTTP error: the caller gets the status only; the detail has the provider text without the key or URL credentials', () => {
    const f = providerFailure(
      apiError(401, 'Incorrect API key sk-house-key-0123456789 for https://u:pw-1234@llm.example.test'),
      model(),
    );
    expect(f.message).to.equal("The model provider failed (HTTP 401); the details are in the agent's activity log");
    expect(f.detail).to.equal(
      "The model provider (openai-compatible, model 'fake-model') answered with status 401: Incorrect API key [redacted] for https://[redacted]@llm.example.test",
    );
  });

  it("after the SDK's retries, the status of the provider's last answer", () => {
    const last = apiError(503, 'overloaded');
    const f = providerFailure(
      new RetryError({
        message: 'Failed after 2 attempts. Last error: overloaded',
        reason: 'maxRetriesExceeded',
        errors: [last, last],
      }),
      model(),
    );
    expect(f.message).to.contain('(HTTP 503)');
    expect(f.detail).to.contain('overloaded');
  });

  it("an unreachable provider: the caller learns no address; the detail names it without the base URL's credentials", () => {
    const err = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const f = providerFailure(err, model({ baseUrl: 'http://admin:pw-in-url@10.0.0.7:11434/v1' }));
    expect(f.message).to.equal("The model provider could not be reached; the details are in the agent's activity log");
    expect(f.detail).to.equal(
      'Could not reach the model provider (openai-compatible) at http://[redacted]@10.0.0.7:11434/v1',
    );
  });

  it('a base URL holding credentials: fetch refuses it; the detail says where the key belongs and holds no password, even one echoed elsewhere', () => {
    const err = new TypeError(
      'Request cannot be constructed from a URL that includes credentials: http://user:pw-in-url@h/v1/chat/completions (pw-in-url)',
    );
    const f = providerFailure(err, model({ baseUrl: 'http://user:pw-in-url@h/v1' }));
    expect(f.message).to.equal("The model call failed; the details are in the agent's activity log");
    expect(f.detail).to.not.contain('pw-in-url');
    expect(f.detail).to.contain('http://[redacted]@h/v1').and.contain("store the key as the model's API key secret");
  });

  it('a very long provider text is kept to a bounded detail', () => {
    const f = providerFailure(apiError(500, 'x'.repeat(50_000)), model());
    expect(f.detail.length).to.equal(MAX_DETAIL_CHARS + 1);
  });
});

describe('service log: errors logged as `err`', () => {
  it('have credentials removed from message, stack and fields', () => {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const err = apiError(
      401,
      'refused https://user:secret-in-log@llm.example.test with Bearer secret-token',
      'https://user:secret-in-log@llm.example.test/v1',
    );
    logger.error({ err }, 'request failed');
    logger.error(
      { err: new Error('wrapped', { cause: new Error('at postgres://app:secret-cause@db/x') }) },
      'housekeeping failed',
    );

    expect(lines).to.have.length(2);
    expect(lines.join('')).to.not.contain('secret');
    const first = JSON.parse(lines[0]!) as { err: { message: string; url: string; statusCode: number } };
    expect(first.err.message).to.equal('refused https://[redacted]@llm.example.test with Bearer [redacted]');
    expect(first.err.url).to.equal('https://[redacted]@llm.example.test/v1');
    expect(first.err.statusCode).to.equal(401);
  });
});
