import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listProviderModels } from '../../src/infra/models/model-list.js';
import type { ResolvedModel } from '../../src/domain/models/language-model.ports.js';
import { errorCode, gql, gqlOk, newWorkspace, type GqlResult, type TestWorkspace } from '../helpers/harness.js';
import { startAnthropicServer, type FakeAnthropic } from '../helpers/anthropic-server.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';

// configureModel checks a model name against the provider's model list where it has one, and
// testModel makes one small call; both observed at local model servers over real HTTP. The
// harness service has no OPENAI_* / ANTHROPIC_API_KEY environment: keys come from secrets.

const CONFIGURE_MODEL = 'mutation($i: ConfigureModelInput!) { configureModel(input: $i) { name model warning } }';
const TEST_MODEL = 'mutation($n: String!) { testModel(name: $n) { ok output error latencyMs } }';

const configure = (ws: TestWorkspace, input: Record<string, unknown>) =>
  gql(ws.adminToken, CONFIGURE_MODEL, { i: input });
const testModel = async (token: string, name: string) =>
  (await gqlOk(token, TEST_MODEL, { n: name })).testModel as {
    ok: boolean;
    output: string | null;
    error: string | null;
    latencyMs: number;
  };

/** A fresh, recognisable key value stored as the secret `name`. */
async function keySecret(ws: TestWorkspace, name: string, prefix = 'sk-test-'): Promise<string> {
  const value = `${prefix}${randomBytes(12).toString('hex')}`;
  await gqlOk(
    ws.adminToken,
    'mutation($n: String!, $v: String!) { createSecret(name: $n, kind: MODEL_API_KEY, value: $v) { name } }',
    { n: name, v: value },
  );
  return value;
}

function expectRefused(r: GqlResult, fieldName: string): string {
  expect(errorCode(r), JSON.stringify(r.errors)).to.equal('BAD_USER_INPUT');
  expect(r.errors?.[0]?.extensions?.field).to.equal(fieldName);
  return r.errors![0]!.message;
}

describe('GraphQL: model names checked against the provider, and testModel', function () {
  this.timeout(30_000);
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;
  let ws: TestWorkspace;

  before(async () => {
    openai = await startOpenAiServer();
    anthropic = await startAnthropicServer();
  });
  after(async () => {
    await openai?.close();
    await anthropic?.close();
  });
  beforeEach(async () => {
    openai.reset();
    anthropic.reset();
    ws = await newWorkspace();
  });

  describe('configureModel', () => {
    it('accepts a name the provider lists, without a warning, having asked GET /models with the key', async () => {
      const key = await keySecret(ws, 'OPENAI');
      const r = await configure(ws, {
        name: 'main',
        provider: 'OPENAI',
        model: 'fake-model-mini',
        baseUrl: openai.url,
        apiKeySecret: 'OPENAI',
      });
      expect(r.errors).to.equal(undefined);
      expect(r.data.configureModel).to.deep.equal({ name: 'main', model: 'fake-model-mini', warning: null });
      expect(openai.listRequests).to.have.length(1);
      expect(openai.listRequests[0]!.headers.authorization).to.equal(`Bearer ${key}`);
    });

    it('refuses a name the provider does not list, naming the close ones it offers, and saves nothing', async () => {
      openai.setModelList([
        'gpt-4o',
        'gpt-4o-mini',
        'gpt-4.1',
        'o3',
        'text-embedding-3-small',
        'whisper-1',
        'dall-e-3',
      ]);
      const r = await configure(ws, {
        name: 'main',
        provider: 'OPENAI_COMPATIBLE',
        model: 'gpt-4o-mni',
        baseUrl: openai.url,
      });
      const message = expectRefused(r, 'input.model');
      expect(message).to.include("'gpt-4o-mni'");
      expect(message).to.match(/close names it offers: gpt-4o-mini, gpt-4o, gpt-4\.1/);
      expect(message).to.not.include('dall-e-3');
      expect((await gqlOk(ws.adminToken, '{ models { name } }')).models).to.deep.equal([]);
    });

    it('accepts a name with a warning when the provider has no model list (404)', async () => {
      openai.setModelList({ status: 404, errorBody: { error: { message: 'Not Found' } } });
      const r = await configure(ws, {
        name: 'local',
        provider: 'OPENAI_COMPATIBLE',
        model: 'anything-goes',
        baseUrl: openai.url,
      });
      expect(r.errors).to.equal(undefined);
      expect(r.data.configureModel.model).to.equal('anything-goes');
      expect(r.data.configureModel.warning).to.match(
        /could not be checked.*no model list \(GET \/models answered HTTP 404\)/,
      );
      expect((await gqlOk(ws.adminToken, '{ models { name warning } }')).models).to.deep.equal([
        { name: 'local', warning: null },
      ]);
    });

    it('accepts with a warning quoting the provider when the list refuses the key (401), without the key', async () => {
      // Not in a provider's key format: only the known value can find it in the provider's text.
      const key = await keySecret(ws, 'BAD_KEY', 'local-key-');
      openai.setModelList({
        status: 401,
        errorBody: {
          error: {
            message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          },
        },
      });
      const r = await configure(ws, {
        name: 'cloud',
        provider: 'OPENAI',
        model: 'gpt-4o',
        baseUrl: openai.url,
        apiKeySecret: 'BAD_KEY',
      });
      expect(r.errors).to.equal(undefined);
      const warning = r.data.configureModel.warning as string;
      expect(warning).to.match(/model list answered HTTP 401: Incorrect API key provided/);
      expect(warning).to.not.include(key);
      expect(JSON.stringify(r)).to.not.include(key.slice('local-key-'.length));
    });

    it('accepts with a warning, sending nothing, when there is no key to ask the public OpenAI API with', async () => {
      const r = await configure(ws, { name: 'cloud', provider: 'OPENAI', model: 'gpt-4o' });
      expect(r.data.configureModel.warning).to.match(/no API key/);
      expect(openai.listRequests).to.have.length(0);
    });

    it('asks a model with its own base URL and no key secret for its list without a key', async () => {
      const r = await configure(ws, { name: 'local', provider: 'OPENAI', model: 'fake-model', baseUrl: openai.url });
      expect(r.data.configureModel.warning).to.equal(null);
      expect(openai.listRequests.map((q) => q.headers.authorization)).to.deep.equal([undefined]);
    });

    it('accepts with a warning when the provider cannot be reached', async () => {
      const gone = await startOpenAiServer();
      const url = gone.url;
      await gone.close();
      const r = await configure(ws, { name: 'local', provider: 'OPENAI_COMPATIBLE', model: 'llama3', baseUrl: url });
      expect(r.data.configureModel.warning).to.match(/could not be reached \(ECONNREFUSED\)/);
    });

    it('checks an Anthropic model against GET /v1/models with x-api-key and anthropic-version', async () => {
      const key = await keySecret(ws, 'ANTHROPIC', 'sk-ant-');
      const ok = await configure(ws, {
        name: 'claude',
        provider: 'ANTHROPIC',
        model: 'claude-haiku-4-5',
        baseUrl: anthropic.url,
        apiKeySecret: 'ANTHROPIC',
      });
      expect(ok.data.configureModel).to.deep.equal({ name: 'claude', model: 'claude-haiku-4-5', warning: null });
      expect(anthropic.listRequests).to.have.length(1);
      expect(anthropic.listRequests[0]!.headers).to.include({ 'x-api-key': key, 'anthropic-version': '2023-06-01' });

      const message = expectRefused(
        await configure(ws, {
          name: 'claude',
          provider: 'ANTHROPIC',
          model: 'claude-haiku-4.5',
          baseUrl: anthropic.url,
          apiKeySecret: 'ANTHROPIC',
        }),
        'input.model',
      );
      expect(message).to.match(/close names it offers: claude-haiku-4-5,/);
    });
  });

  describe('the model list reader', () => {
    const model = (m: Partial<ResolvedModel>): ResolvedModel => ({
      reference: 'x',
      provider: 'openai-compatible',
      model: 'x',
      baseUrl: null,
      apiKey: null,
      inputPricePerMillion: 0,
      outputPricePerMillion: 0,
      acceptsImages: false,
      ...m,
    });

    it('gives up on a list that does not answer within its timeout, saying so', async () => {
      const held: ServerResponse[] = [];
      const server = createServer((_req, res) => void held.push(res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
        const listing = await listProviderModels(model({ baseUrl: url }), 50);
        expect(listing).to.deep.equal({
          listed: false,
          reason: "the provider's model list did not answer within 0.05 s",
        });
        expect(held).to.have.length(1);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('sends nothing to a base URL holding credentials, and does not quote them', async () => {
      const listing = await listProviderModels(
        model({ baseUrl: openai.url.replace('http://', 'http://alice:s3cr3t-pass@') }),
      );
      expect(listing.listed).to.equal(false);
      expect(JSON.stringify(listing))
        .to.match(/holds credentials/)
        .and.not.match(/alice|s3cr3t/);
      expect(openai.listRequests).to.have.length(0);
    });

    it('treats an empty list as no list (nothing to check against)', async () => {
      openai.setModelList([]);
      expect(await listProviderModels(model({ baseUrl: openai.url }))).to.deep.equal({
        listed: false,
        reason: 'the model list is empty',
      });
    });
  });

  describe('testModel', () => {
    it("returns the model's answer to one small call, sent as a run would send it", async () => {
      const key = await keySecret(ws, 'OPENAI');
      await gqlOk(ws.adminToken, CONFIGURE_MODEL, {
        i: { name: 'main', provider: 'OPENAI', model: 'fake-model', baseUrl: openai.url, apiKeySecret: 'OPENAI' },
      });
      openai.enqueue({ text: 'OK' });
      const r = await testModel(ws.adminToken, 'main');
      expect(r).to.include({ ok: true, output: 'OK', error: null });
      expect(r.latencyMs).to.be.a('number').and.at.least(0);
      expect(openai.requests).to.have.length(1);
      const sent = openai.requests[0]!;
      expect(sent.path).to.equal('/v1/chat/completions');
      expect(sent.headers.authorization).to.equal(`Bearer ${key}`);
      expect(sent.body.model).to.equal('fake-model');
      expect(JSON.stringify(sent.body.messages)).to.include('Reply with OK');
      expect(sent.body.max_tokens).to.equal(16);
    });

    it("returns the provider's status and message when it refuses the key (401), without the key", async () => {
      const key = await keySecret(ws, 'OPENAI');
      await gqlOk(ws.adminToken, CONFIGURE_MODEL, {
        i: { name: 'main', provider: 'OPENAI', model: 'fake-model', baseUrl: openai.url, apiKeySecret: 'OPENAI' },
      });
      openai.enqueue({
        status: 401,
        errorBody: {
          error: {
            message: `Incorrect API key provided: ${key}.`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
      });
      const raw = await gql(ws.adminToken, TEST_MODEL, { n: 'main' });
      const r = raw.data.testModel;
      expect(r).to.include({ ok: false, output: null });
      expect(r.error).to.match(/status 401: Incorrect API key provided/);
      expect(JSON.stringify(raw)).to.not.include(key).and.to.not.include(key.slice(8));
    });

    it("returns the provider's status and message when it fails (500)", async () => {
      await gqlOk(ws.adminToken, CONFIGURE_MODEL, {
        i: { name: 'local', provider: 'OPENAI_COMPATIBLE', model: 'fake-model', baseUrl: openai.url },
      });
      // The adapter retries a 500 once, as a run's call does: both answers fail.
      const failure = {
        status: 500,
        errorBody: { error: { message: 'The upstream GPU pool is exhausted', type: 'server_error' } },
      };
      openai.enqueue(failure, failure);
      const r = await testModel(ws.adminToken, 'local');
      expect(r).to.include({ ok: false, output: null });
      expect(r.error).to.match(/status 500: The upstream GPU pool is exhausted/);
    });

    it('tests an Anthropic model through the Messages API, answer and error', async () => {
      const key = await keySecret(ws, 'ANTHROPIC', 'sk-ant-');
      await gqlOk(ws.adminToken, CONFIGURE_MODEL, {
        i: {
          name: 'claude',
          provider: 'ANTHROPIC',
          model: 'claude-haiku-4-5',
          baseUrl: anthropic.url,
          apiKeySecret: 'ANTHROPIC',
        },
      });
      anthropic.answer('OK');
      expect(await testModel(ws.adminToken, 'claude')).to.include({ ok: true, output: 'OK', error: null });
      expect(anthropic.requests).to.have.length(1);
      expect(anthropic.requests[0]!.headers['x-api-key']).to.equal(key);
      expect(anthropic.requests[0]!.body.max_tokens).to.equal(16);

      anthropic.failWith({ status: 401, type: 'authentication_error', message: 'invalid x-api-key' });
      const failed = await testModel(ws.adminToken, 'claude');
      expect(failed).to.include({ ok: false, output: null });
      expect(failed.error).to.match(/status 401: invalid x-api-key/);
      expect(JSON.stringify(failed)).to.not.include(key);
    });

    it('reports a model whose key secret is gone as not configured, sending nothing', async () => {
      await keySecret(ws, 'OPENAI');
      await gqlOk(ws.adminToken, CONFIGURE_MODEL, {
        i: { name: 'main', provider: 'OPENAI', model: 'fake-model', baseUrl: openai.url, apiKeySecret: 'OPENAI' },
      });
      await gqlOk(ws.adminToken, 'mutation { deleteSecret(name: "OPENAI") }');
      const r = await testModel(ws.adminToken, 'main');
      expect(r).to.include({ ok: false, output: null });
      expect(r.error).to.match(/names the secret 'OPENAI', which does not exist/);
      expect(openai.requests).to.have.length(0);
    });

    it('answers NOT_FOUND for a name no model has, and FORBIDDEN to a member', async () => {
      expect(errorCode(await gql(ws.adminToken, TEST_MODEL, { n: 'nope' }))).to.equal('NOT_FOUND');
      await gqlOk(ws.adminToken, CONFIGURE_MODEL, {
        i: { name: 'local', provider: 'OPENAI_COMPATIBLE', model: 'fake-model', baseUrl: openai.url },
      });
      const member = await ws.addMember();
      expect(errorCode(await gql(member.token, TEST_MODEL, { n: 'local' }))).to.equal('FORBIDDEN');
      expect(openai.requests).to.have.length(0);
    });
  });
});
