import { expect } from 'chai';
import { environmentModels } from '../../src/domain/models/environment-models.js';

// The environment's model providers as GraphQL `environmentModels` lists them: which server and
// model, from which variable, whether a key is set — never the key, never a URL's credentials.

describe('models: the environment providers', () => {
  it('none without OPENAI_* or ANTHROPIC_*', () => {
    expect(environmentModels({ openai: null, anthropic: null })).to.deep.equal([]);
  });

  it('OPENAI_BASE_URL is an OpenAI-compatible server, its credentials masked, and the fallback', () => {
    const [m, ...rest] = environmentModels({
      openai: { apiKey: null, baseUrl: 'http://localhost:11434/v1', model: 'llama3.2' },
      anthropic: null,
    });
    expect(rest).to.deep.equal([]);
    expect(m).to.deep.equal({
      provider: 'openai-compatible',
      baseUrl: 'http://localhost:11434/v1',
      model: 'llama3.2',
      source: 'OPENAI_BASE_URL',
      hasKey: false,
      isFallback: true,
    });
    const masked = environmentModels({
      openai: { apiKey: 'sk-secret-value', baseUrl: 'https://user:pw@llm.example/v1?key=k', model: 'm' },
      anthropic: null,
    });
    expect(masked[0]!.baseUrl).to.equal('https://***@llm.example/v1?***');
    expect(JSON.stringify(masked)).to.not.include('sk-secret-value').and.not.include('pw');
  });

  it('OPENAI_API_KEY alone is the public OpenAI API; Anthropic comes after OpenAI and is not the fallback', () => {
    const list = environmentModels({
      openai: { apiKey: 'sk-1', baseUrl: null, model: 'gpt-4o-mini' },
      anthropic: { apiKey: 'sk-ant-2', model: 'claude-3-5-haiku-latest' },
    });
    expect(list.map((m) => [m.provider, m.baseUrl, m.source, m.hasKey, m.isFallback])).to.deep.equal([
      ['openai', null, 'OPENAI_API_KEY', true, true],
      ['anthropic', null, 'ANTHROPIC_API_KEY', true, false],
    ]);
    expect(JSON.stringify(list)).to.not.include('sk-1').and.not.include('sk-ant-2');
  });
});
