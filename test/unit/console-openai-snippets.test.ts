import { expect } from 'chai';
import { parse } from 'yaml';
import {
  AGENT_KEY_PLACEHOLDER,
  WORKSPACE_KEY_PLACEHOLDER,
  agentBaseUrl,
  openAiSnippets,
  workspaceBaseUrl,
} from '../../src/console/openai-snippets.js';

// The OpenAI API tab's snippets are pasted into shells, programs and chat front ends' settings:
// each names the right base URL for its key (the agent's for an agent key, the workspace's for a
// workspace key), holds a placeholder and never a key, and is valid in its own language.

const ORIGIN = 'https://agents.example.com';
const AGENT = 'ag_01J9ZK';

describe('console: OpenAI API client snippets', () => {
  const snippets = openAiSnippets(ORIGIN, AGENT);
  const text = (id: string) => snippets.find((s) => s.id === id)!.text;

  it('the two base URLs: the agent URL under /agents/<id>/v1, the workspace URL at /v1', () => {
    expect(agentBaseUrl(ORIGIN, AGENT)).to.equal('https://agents.example.com/agents/ag_01J9ZK/v1');
    expect(workspaceBaseUrl(ORIGIN)).to.equal('https://agents.example.com/v1');
    expect(agentBaseUrl(ORIGIN, 'a/b?c')).to.equal('https://agents.example.com/agents/a%2Fb%3Fc/v1');
  });

  it('one snippet per client, in the order the tab shows them', () => {
    expect(snippets.map((s) => s.client)).to.deep.equal([
      'curl',
      'Python',
      'TypeScript',
      'AI SDK',
      'Open WebUI',
      'LibreChat',
    ]);
    for (const s of snippets) expect(s.note, s.id).to.not.equal('');
  });

  it('curl, Python, TypeScript and the AI SDK call the agent URL with the agent-key placeholder', () => {
    const base = agentBaseUrl(ORIGIN, AGENT);
    for (const id of ['curl', 'python', 'typescript', 'ai-sdk']) {
      expect(text(id), id)
        .to.include(base)
        .and.include(AGENT_KEY_PLACEHOLDER)
        .and.not.include(WORKSPACE_KEY_PLACEHOLDER);
    }
    expect(text('curl')).to.include(`${base}/chat/completions`).and.include(`Bearer ${AGENT_KEY_PLACEHOLDER}`);
    const body = /-d '(.*)'$/m.exec(text('curl'))![1]!;
    expect(JSON.parse(body)).to.deep.equal({ model: 'agent', messages: [{ role: 'user', content: 'Hello' }] });
    expect(text('python'))
      .to.include(`OpenAI(base_url="${base}", api_key="${AGENT_KEY_PLACEHOLDER}")`)
      .and.include('client.chat.completions.create(');
    expect(text('typescript')).to.include(`new OpenAI({ baseURL: "${base}"`).and.include('client.responses.create(');
    expect(text('ai-sdk')).to.include(
      `createOpenAI({ baseURL: "${base}", apiKey: "${AGENT_KEY_PLACEHOLDER}" }).chat('agent')`,
    );
  });

  it('Open WebUI and LibreChat use the workspace URL and a workspace key; LibreChat names the agent as its model', () => {
    expect(text('open-webui')).to.equal(`URL: ${ORIGIN}/v1\nKey: ${WORKSPACE_KEY_PLACEHOLDER}`);
    expect(snippets.find((s) => s.id === 'open-webui')!.note).to.include(
      'Admin Panel → Settings → Connections → OpenAI API',
    );
    expect(parse(text('librechat'))).to.deep.equal({
      endpoints: {
        custom: [
          {
            name: 'Agents',
            apiKey: '${AGENTS_WORKSPACE_KEY}',
            baseURL: `${ORIGIN}/v1`,
            models: { default: [AGENT], fetch: true },
            titleConvo: false,
          },
        ],
      },
    });
  });

  it('quotes are escaped: an origin or id with a quote cannot break out of the string literal', () => {
    const odd = openAiSnippets('http://h"ost', 'x"y');
    expect(odd.find((s) => s.id === 'python')!.text).to.include('base_url="http://h\\"ost/agents/x%22y/v1"');
    expect(parse(odd.find((s) => s.id === 'librechat')!.text).endpoints.custom[0].models.default).to.deep.equal([
      'x"y',
    ]);
  });

  it('no snippet holds anything shaped like a key', () => {
    for (const s of snippets) expect(s.text, s.id).to.not.match(/\b(ak|wk)_[A-Za-z0-9]{8,}/);
  });
});
