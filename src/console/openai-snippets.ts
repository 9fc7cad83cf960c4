// Ready-to-paste client code for an agent's OpenAI-compatible API. None holds a key: each names a
// placeholder the person replaces with a key from the API Keys tab (or, for LibreChat, an
// environment variable, because its librechat.yaml is often committed).

export const AGENT_KEY_PLACEHOLDER = '<your agent key (ak_…)>';
export const WORKSPACE_KEY_PLACEHOLDER = '<your workspace key (wk_…)>';

/** The agent's own base URL: clients append /chat/completions, /responses or /models. */
export function agentBaseUrl(origin: string, agentId: string): string {
  return `${origin}/agents/${encodeURIComponent(agentId)}/v1`;
}

/** The workspace's base URL: a workspace key, and the agent's id as the model. */
export function workspaceBaseUrl(origin: string): string {
  return `${origin}/v1`;
}

export interface OpenAiSnippet {
  id: 'curl' | 'python' | 'typescript' | 'ai-sdk' | 'open-webui' | 'librechat';
  client: string;
  /** Where the text goes, or what to install first. */
  note: string;
  text: string;
}

// JSON string literals are valid string literals in Python and TypeScript too, and they escape
// whatever an origin or an id may hold.
const quote = (s: string) => JSON.stringify(s);

/** Snippets for the agent's base URL (curl, SDKs) and for the workspace URL (chat front ends). */
export function openAiSnippets(origin: string, agentId: string): OpenAiSnippet[] {
  const base = agentBaseUrl(origin, agentId);
  const workspace = workspaceBaseUrl(origin);
  return [
    {
      id: 'curl',
      client: 'curl',
      note: 'Chat Completions on the agent URL; the model name is ignored (it is the agent).',
      text: [
        `curl -s ${base}/chat/completions \\`,
        `  -H "authorization: Bearer ${AGENT_KEY_PLACEHOLDER}" \\`,
        `  -H 'content-type: application/json' \\`,
        `  -d '{"model":"agent","messages":[{"role":"user","content":"Hello"}]}'`,
      ].join('\n'),
    },
    {
      id: 'python',
      client: 'Python',
      note: 'pip install openai',
      text: [
        'from openai import OpenAI',
        '',
        `client = OpenAI(base_url=${quote(base)}, api_key=${quote(AGENT_KEY_PLACEHOLDER)})`,
        'answer = client.chat.completions.create(model="agent", messages=[{"role": "user", "content": "Hello"}])',
        'print(answer.choices[0].message.content)',
      ].join('\n'),
    },
    {
      id: 'typescript',
      client: 'TypeScript',
      note: 'npm install openai',
      text: [
        "import OpenAI from 'openai';",
        '',
        `const client = new OpenAI({ baseURL: ${quote(base)}, apiKey: ${quote(AGENT_KEY_PLACEHOLDER)} });`,
        "const answer = await client.responses.create({ model: 'agent', input: 'Hello' });",
        'console.log(answer.output_text);',
      ].join('\n'),
    },
    {
      id: 'ai-sdk',
      client: 'AI SDK',
      note: "npm install ai @ai-sdk/openai — .responses('agent') works too",
      text: [
        "import { createOpenAI } from '@ai-sdk/openai';",
        "import { generateText } from 'ai';",
        '',
        `const agent = createOpenAI({ baseURL: ${quote(base)}, apiKey: ${quote(AGENT_KEY_PLACEHOLDER)} }).chat('agent');`,
        "const { text } = await generateText({ model: agent, prompt: 'Hello' });",
        'console.log(text);',
      ].join('\n'),
    },
    {
      id: 'open-webui',
      client: 'Open WebUI',
      note: 'Admin Panel → Settings → Connections → OpenAI API → Add connection. Each agent the key may use appears as a model, by its id.',
      text: [`URL: ${workspace}`, `Key: ${WORKSPACE_KEY_PLACEHOLDER}`].join('\n'),
    },
    {
      id: 'librechat',
      client: 'LibreChat',
      note: "librechat.yaml; put a workspace key in LibreChat's .env as AGENTS_WORKSPACE_KEY",
      text: [
        'endpoints:',
        '  custom:',
        '    - name: "Agents"',
        '      apiKey: "${AGENTS_WORKSPACE_KEY}"',
        `      baseURL: ${quote(workspace)}`,
        '      models:',
        `        default: [${quote(agentId)}]`,
        '        fetch: true',
        '      titleConvo: false',
      ].join('\n'),
    },
  ];
}
