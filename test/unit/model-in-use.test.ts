import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { ModelConfig } from '../../src/domain/models/model.entities.js';
import type { Repositories } from '../../src/domain/ports.js';
import { modelInUse } from '../../src/domain/models/model-choice.js';
import { resolveModel, type ModelDefaults } from '../../src/domain/models/model-resolver.js';

// The model the console's Overview says a run uses (Agent.modelInUse) is the one the run resolves:
// the entry's override, else the agent's default, else the workspace's default, else the
// environment's, each named; and what happens when nothing names one or no provider takes it.

const WS = 'ws-1';
const OPENAI_ENV: ModelDefaults = {
  openai: { apiKey: 'k', baseUrl: 'http://local/v1', model: 'env-model' },
  anthropic: null,
};
const ANTHROPIC_ENV: ModelDefaults = { openai: null, anthropic: { apiKey: 'k', model: 'claude-env' } };
const NONE: ModelDefaults = { openai: null, anthropic: null };

function model(name: string, fields: Partial<ModelConfig> = {}): ModelConfig {
  return {
    id: `m-${name}`,
    workspaceId: WS,
    name,
    provider: 'openai-compatible',
    model: `${name}-upstream`,
    baseUrl: 'http://models.test/v1',
    apiKeySecret: null,
    inputPricePerMillion: 0,
    outputPricePerMillion: 0,
    isDefault: false,
    acceptsImages: false,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...fields,
  };
}

function repos(models: ModelConfig[]): Repositories {
  return {
    models: {
      findByName: async (ws: string, name: string) =>
        models.find((m) => m.workspaceId === ws && m.name === name) ?? null,
      listByWorkspace: async (ws: string) => models.filter((m) => m.workspaceId === ws),
    },
  } as unknown as Repositories;
}

const agent = (defaultModel: string | null) => ({ id: 'a', workspaceId: WS, defaultModel }) as unknown as Agent;
const noSecrets = { reveal: async () => null };

describe('the model a run uses, as the Overview shows it', () => {
  const cases: {
    name: string;
    models: ModelConfig[];
    defaults: ModelDefaults;
    agentModel: string | null;
    override: string | null;
    expected: { reference: string; source: string; provider: string | null; model: string; configured: boolean };
  }[] = [
    {
      name: "the entry's override first",
      models: [model('house', { isDefault: true }), model('special')],
      defaults: OPENAI_ENV,
      agentModel: 'house',
      override: 'special',
      expected: {
        reference: 'special',
        source: 'ENTRY',
        provider: 'openai-compatible',
        model: 'special-upstream',
        configured: true,
      },
    },
    {
      name: "then the agent's default",
      models: [model('house', { isDefault: true }), model('mine')],
      defaults: OPENAI_ENV,
      agentModel: 'mine',
      override: null,
      expected: {
        reference: 'mine',
        source: 'AGENT',
        provider: 'openai-compatible',
        model: 'mine-upstream',
        configured: true,
      },
    },
    {
      name: "then the workspace's default",
      models: [model('other'), model('house', { isDefault: true })],
      defaults: OPENAI_ENV,
      agentModel: null,
      override: null,
      expected: {
        reference: 'house',
        source: 'WORKSPACE_DEFAULT',
        provider: 'openai-compatible',
        model: 'house-upstream',
        configured: true,
      },
    },
    {
      name: "then the environment's (OPENAI_MODEL)",
      models: [model('other')],
      defaults: OPENAI_ENV,
      agentModel: null,
      override: null,
      expected: {
        reference: 'env-model',
        source: 'ENVIRONMENT',
        provider: 'openai',
        model: 'env-model',
        configured: false,
      },
    },
    {
      name: "the environment's Anthropic model when OpenAI is not configured",
      models: [],
      defaults: ANTHROPIC_ENV,
      agentModel: null,
      override: null,
      expected: {
        reference: 'claude-env',
        source: 'ENVIRONMENT',
        provider: 'anthropic',
        model: 'claude-env',
        configured: false,
      },
    },
    {
      name: "an agent's name that is no configured model goes to the environment's provider",
      models: [],
      defaults: OPENAI_ENV,
      agentModel: 'llama3.2',
      override: null,
      expected: { reference: 'llama3.2', source: 'AGENT', provider: 'openai', model: 'llama3.2', configured: false },
    },
  ];
  for (const c of cases)
    it(`${c.name}, as the run resolves it`, async () => {
      const shown = await modelInUse(repos(c.models), c.defaults, agent(c.agentModel), c.override);
      expect(shown).to.deep.equal({ ...c.expected, problem: null });
      const resolved = await resolveModel(repos(c.models), noSecrets, c.defaults, agent(c.agentModel), c.override);
      expect({ reference: resolved.reference, provider: resolved.provider, model: resolved.model }).to.deep.equal({
        reference: shown.reference,
        provider: shown.provider,
        model: shown.model,
      });
    });

  it('nothing names a model: NONE, with what to configure', async () => {
    const shown = await modelInUse(repos([model('other')]), NONE, agent(null), null);
    expect(shown).to.include({ reference: null, source: 'NONE', provider: null, configured: false });
    expect(shown.problem)
      .to.match(/default model/)
      .and.match(/OPENAI_BASE_URL/);
  });

  it('a name no configured model has and no environment provider takes: the problem says so', async () => {
    const shown = await modelInUse(repos([]), NONE, agent('ghost'), null);
    expect(shown).to.include({ reference: 'ghost', source: 'AGENT', provider: null, model: null });
    expect(shown.problem).to.match(/No model named 'ghost'/);
  });
});
