// How the Models page writes a provider (no browser needed: the unit tests read it too).

type Provider = 'OPENAI' | 'ANTHROPIC' | 'OPENAI_COMPATIBLE';

/** A provider as people name it. */
export const providerName = (p: Provider): string =>
  ({ OPENAI: 'OpenAI', ANTHROPIC: 'Anthropic', OPENAI_COMPATIBLE: 'OpenAI-compatible' })[p];

/** One line for an environment's provider: "OpenAI-compatible at http://localhost:11434/v1 · llama3.2, from OPENAI_BASE_URL". */
export function environmentLine(m: {
  provider: Provider;
  baseUrl: string | null;
  model: string;
  source: string;
}): string {
  return `${providerName(m.provider)}${m.baseUrl ? ` at ${m.baseUrl}` : ''} · ${m.model}, from ${m.source}`;
}
