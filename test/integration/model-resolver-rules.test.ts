import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { ModelConfig } from '../../src/domain/models/model.entities.js';
import type { Repositories } from '../../src/domain/ports.js';
import {
  modelHostAllowed,
  modelIsPriced,
  ModelNotConfigured,
  resolveModel,
  type ModelDefaults,
  type SecretReader,
} from '../../src/domain/models/model-resolver.js';

// Which model, provider, base URL and API key a prompt run resolves to, for every combination the
// HTTP-level tests (model-resolution.test.ts) cannot reach: the harness service has no
// OPENAI_* / ANTHROPIC_API_KEY environment, and these rules are about that environment. The
// workspace's configured models and secrets are given as plain in-memory tables.

const WS = 'ws-1';
const OPENAI_ENV = { apiKey: 'sk-openai-env', baseUrl: 'https://openai.env.test/v1', model: 'env-gpt' };
const ANTHROPIC_ENV = { apiKey: 'sk-ant-env', model: 'claude-env' };
const BOTH: ModelDefaults = { openai: OPENAI_ENV, anthropic: ANTHROPIC_ENV };

function model(name: string, fields: Partial<ModelConfig> = {}): ModelConfig {
  const now = new Date(0);
  return {
    id: `m-${name}`,
    workspaceId: WS,
    name,
    provider: 'openai',
    model: `${name}-upstream`,
    baseUrl: null,
    apiKeySecret: null,
    inputPricePerMillion: 0,
    outputPricePerMillion: 0,
    isDefault: false,
    acceptsImages: false,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

function reposWith(models: ModelConfig[]): Repositories {
  return {
    models: {
      findByName: async (ws: string, name: string) =>
        models.find((m) => m.workspaceId === ws && m.name === name) ?? null,
      listByWorkspace: async (ws: string) => models.filter((m) => m.workspaceId === ws),
    },
  } as unknown as Repositories;
}

function secretsWith(values: Record<string, string>): SecretReader {
  return { reveal: async (ws, name) => (ws === WS && name in values ? { value: values[name]! } : null) };
}

function agent(defaultModel: string | null = null): Agent {
  return { id: 'agent-1', workspaceId: WS, defaultModel } as unknown as Agent;
}

async function resolve(
  models: ModelConfig[],
  defaults: ModelDefaults,
  reference: string | null,
  secrets: Record<string, string> = {},
) {
  return resolveModel(reposWith(models), secretsWith(secrets), defaults, agent(reference), null);
}

async function refusal(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected the resolution to be refused');
}

describe('model resolution rules (environment providers, keys, prices)', () => {
  it("with no model named anywhere, the run uses the environment provider's default model, OpenAI first", async () => {
    expect(await resolve([], BOTH, null)).to.include({
      reference: 'env-gpt',
      provider: 'openai',
      model: 'env-gpt',
      apiKey: OPENAI_ENV.apiKey,
      baseUrl: OPENAI_ENV.baseUrl,
    });
    expect(await resolve([], { openai: null, anthropic: ANTHROPIC_ENV }, null)).to.include({
      reference: 'claude-env',
      provider: 'anthropic',
      model: 'claude-env',
      apiKey: ANTHROPIC_ENV.apiKey,
    });
  });

  it("a workspace default model wins over the environment provider's default model", async () => {
    const r = await resolve(
      [model('house', { isDefault: true, provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' })],
      BOTH,
      null,
    );
    expect(r).to.include({ reference: 'house', provider: 'openai-compatible', model: 'house-upstream' });
  });

  it('with no model anywhere and no provider in the environment, the run is refused with what to configure', async () => {
    const e = await refusal(resolve([], { openai: null, anthropic: null }, null));
    expect(e).to.be.instanceOf(ModelNotConfigured);
    expect(e.message)
      .to.contain('defaultModel')
      .and.contain('isDefault')
      .and.contain('OPENAI_BASE_URL')
      .and.contain('ANTHROPIC_API_KEY');
  });

  it("a configured anthropic model without apiKeySecret uses the environment's Anthropic key, not OpenAI's", async () => {
    const r = await resolve([model('house', { provider: 'anthropic', model: 'claude-x' })], BOTH, 'house');
    expect(r).to.include({ provider: 'anthropic', model: 'claude-x', apiKey: ANTHROPIC_ENV.apiKey, baseUrl: null });
  });

  it("a configured openai model without apiKeySecret uses the environment's OpenAI key and base URL", async () => {
    const r = await resolve([model('house', { provider: 'openai', model: 'gpt-x' })], BOTH, 'house');
    expect(r).to.include({
      provider: 'openai',
      model: 'gpt-x',
      apiKey: OPENAI_ENV.apiKey,
      baseUrl: OPENAI_ENV.baseUrl,
    });
  });

  it("a configured model's own base URL wins over the environment's, and gets no environment key", async () => {
    const r = await resolve([model('house', { provider: 'openai', baseUrl: 'https://own.test/v1' })], BOTH, 'house');
    expect(r).to.include({ baseUrl: 'https://own.test/v1', apiKey: null });
    const a = await resolve(
      [model('claude', { provider: 'anthropic', baseUrl: 'https://own.test/v1' })],
      BOTH,
      'claude',
    );
    expect(a).to.include({ baseUrl: 'https://own.test/v1', apiKey: null });
  });

  it("a configured openai model whose own base URL is the environment's (trailing slash aside) gets the environment key", async () => {
    const r = await resolve([model('house', { provider: 'openai', baseUrl: `${OPENAI_ENV.baseUrl}/` })], BOTH, 'house');
    expect(r).to.include({ apiKey: OPENAI_ENV.apiKey });
  });

  it('with OPENAI_API_KEY but no OPENAI_BASE_URL, the key goes only to a model without a base URL of its own', async () => {
    const env: ModelDefaults = { openai: { apiKey: 'sk-env', baseUrl: null, model: 'm' }, anthropic: null };
    expect(await resolve([model('house', { provider: 'openai' })], env, 'house')).to.include({
      apiKey: 'sk-env',
      baseUrl: null,
    });
    expect(
      await resolve([model('own', { provider: 'openai', baseUrl: 'http://127.0.0.1:4799/v1' })], env, 'own'),
    ).to.include({ apiKey: null });
  });

  it('a configured openai model without a key goes to a keyless OPENAI_BASE_URL (a local server) without one', async () => {
    const env: ModelDefaults = {
      openai: { apiKey: null, baseUrl: 'http://localhost:11434/v1', model: 'llama3' },
      anthropic: null,
    };
    expect(await resolve([model('house', { provider: 'openai', isDefault: true })], env, null)).to.include({
      baseUrl: 'http://localhost:11434/v1',
      apiKey: null,
    });
  });

  it("a model's own key secret wins over the environment key, also at the environment's base URL", async () => {
    const r = await resolve([model('house', { provider: 'openai', apiKeySecret: 'K' })], BOTH, 'house', {
      K: 'sk-own',
    });
    expect(r).to.include({ apiKey: 'sk-own', baseUrl: OPENAI_ENV.baseUrl });
  });

  it('MODEL_HOSTS_ALLOWED refuses a configured model whose own base URL names another host', async () => {
    const limited: ModelDefaults = { ...BOTH, allowedHosts: ['own.test'] };
    expect(
      await resolve([model('ok', { provider: 'openai-compatible', baseUrl: 'https://own.test/v1' })], limited, 'ok'),
    ).to.include({ baseUrl: 'https://own.test/v1' });
    const e = await refusal(
      resolve([model('no', { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' })], limited, 'no'),
    );
    expect(e).to.be.instanceOf(ModelNotConfigured);
    expect(e.message).to.contain('MODEL_HOSTS_ALLOWED');
    // The environment's own base URL is the operator's choice, never refused.
    expect(await resolve([], limited, 'gpt-x')).to.include({ baseUrl: OPENAI_ENV.baseUrl });
  });

  it('host list entries: a host (any port), host:port, *.domain (not the bare domain), IPv6, case-insensitive', () => {
    expect(modelHostAllowed('http://x.test:8080/v1', null)).to.equal(true);
    expect(modelHostAllowed('http://x.test:8080/v1', ['x.test'])).to.equal(true);
    expect(modelHostAllowed('http://X.Test/v1', ['x.test'])).to.equal(true);
    expect(modelHostAllowed('http://y.test/v1', ['x.test'])).to.equal(false);
    expect(modelHostAllowed('http://x.test:8080/v1', ['x.test:8080'])).to.equal(true);
    expect(modelHostAllowed('http://x.test:8081/v1', ['x.test:8080'])).to.equal(false);
    expect(modelHostAllowed('http://x.test/v1', ['x.test:80'])).to.equal(true);
    expect(modelHostAllowed('https://x.test/v1', ['x.test:80'])).to.equal(false);
    expect(modelHostAllowed('https://a.b.example/v1', ['*.example'])).to.equal(true);
    expect(modelHostAllowed('https://example/v1', ['*.example'])).to.equal(false);
    expect(modelHostAllowed('https://evilexample/v1', ['*.example'])).to.equal(false);
    expect(modelHostAllowed('http://[::1]:11434/v1', ['[::1]:11434'])).to.equal(true);
    expect(modelHostAllowed('http://[::1]:11435/v1', ['[::1]:11434'])).to.equal(false);
    expect(modelHostAllowed('not a url', ['x.test'])).to.equal(false);
    expect(modelHostAllowed('http://x.test/v1', [])).to.equal(false);
  });

  it('a configured openai-compatible model gets neither environment key nor environment base URL', async () => {
    const r = await resolve(
      [model('local', { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' })],
      BOTH,
      'local',
    );
    expect(r).to.include({ provider: 'openai-compatible', apiKey: null, baseUrl: 'http://127.0.0.1:9/v1' });
  });

  it('a configured openai model with its apiKeySecret resolves without any OpenAI environment (no base URL to inherit)', async () => {
    const r = await resolve(
      [model('house', { provider: 'openai', apiKeySecret: 'OPENAI_KEY' })],
      { openai: null, anthropic: ANTHROPIC_ENV },
      'house',
      { OPENAI_KEY: 'sk-secret' },
    );
    expect(r).to.include({ provider: 'openai', apiKey: 'sk-secret', baseUrl: null });
  });

  it('a configured anthropic model is refused when only OpenAI has a key in the environment', async () => {
    const e = await refusal(
      resolve([model('house', { provider: 'anthropic' })], { openai: OPENAI_ENV, anthropic: null }, 'house'),
    );
    expect(e).to.be.instanceOf(ModelNotConfigured);
    expect(e.message).to.contain("'house'").and.contain('no API key');
  });

  it('a configured openai model is refused when only Anthropic has a key in the environment', async () => {
    const e = await refusal(
      resolve([model('house', { provider: 'openai' })], { openai: null, anthropic: ANTHROPIC_ENV }, 'house'),
    );
    expect(e).to.be.instanceOf(ModelNotConfigured);
    expect(e.message).to.contain("'house'").and.contain('no API key');
  });

  it('an unconfigured claude-* reference goes to the Anthropic environment when both providers are set', async () => {
    const r = await resolve([], BOTH, 'claude-sonnet');
    expect(r).to.include({
      provider: 'anthropic',
      model: 'claude-sonnet',
      apiKey: ANTHROPIC_ENV.apiKey,
      baseUrl: null,
    });
  });

  it('an unconfigured reference that only contains "claude" later in its name goes to the OpenAI environment', async () => {
    const r = await resolve([], BOTH, 'proxy-claude-sonnet');
    expect(r).to.include({
      provider: 'openai',
      model: 'proxy-claude-sonnet',
      apiKey: OPENAI_ENV.apiKey,
      baseUrl: OPENAI_ENV.baseUrl,
    });
  });

  it('an unconfigured non-claude reference goes to the OpenAI environment even when Anthropic is also set', async () => {
    const r = await resolve([], BOTH, 'gpt-4o');
    expect(r).to.include({ provider: 'openai', model: 'gpt-4o', apiKey: OPENAI_ENV.apiKey });
  });

  it('an unconfigured reference goes to the Anthropic environment when it is the only provider', async () => {
    const r = await resolve([], { openai: null, anthropic: ANTHROPIC_ENV }, 'gpt-4o');
    expect(r).to.include({ provider: 'anthropic', model: 'gpt-4o', apiKey: ANTHROPIC_ENV.apiKey, baseUrl: null });
  });

  it('an unconfigured reference with no environment provider is refused, naming the reference and what to set', async () => {
    const e = await refusal(resolve([], { openai: null, anthropic: null }, 'gpt-4o'));
    expect(e).to.be.instanceOf(ModelNotConfigured);
    expect(e.message).to.contain("'gpt-4o'").and.contain('OPENAI_API_KEY').and.contain('ANTHROPIC_API_KEY');
  });

  it('a run can cost credits only on a configured model with an input or an output price', async () => {
    const models = [
      model('free'),
      model('input-priced', { inputPricePerMillion: 1 }),
      model('output-priced', { outputPricePerMillion: 2 }),
    ];
    const priced = (name: string) => modelIsPriced(reposWith(models), agent(name), null);
    expect(await priced('free')).to.equal(false);
    expect(await priced('input-priced')).to.equal(true);
    expect(await priced('output-priced')).to.equal(true);
    expect(await priced('gpt-4o')).to.equal(false);
  });
});
