import { DomainError } from '../../src/domain/errors.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { Principal } from '../../src/domain/principal.js';
import type { RunEntry, RunInput } from '../../src/domain/runtime/run.types.js';
import { gqlOk, h, newWorkspace, type TestWorkspace } from './harness.js';
import { startOpenAiServer, type FakeOpenAi } from './openai-server.js';

/** Configures a workspace model named `test-model` pointing at the fake OpenAI-compatible server. */
export async function configureFakeModel(
  adminToken: string,
  fake: FakeOpenAi,
  prices = { input: 1, output: 2 },
  name = 'test-model',
): Promise<void> {
  await gqlOk(adminToken, `mutation($i: ConfigureModelInput!) { configureModel(input: $i) { id } }`, {
    i: {
      name,
      provider: 'OPENAI_COMPATIBLE',
      model: 'fake-model',
      baseUrl: fake.url,
      inputPricePerMillion: prices.input,
      outputPricePerMillion: prices.output,
    },
  });
}

/** The fake model server and a workspace whose `test-model` answers from it. */
export interface FakeModelWorkspace {
  fake: FakeOpenAi;
  ws: TestWorkspace;
}

/**
 * Registers the hooks of a suite that runs on the fake model: before all, a fake OpenAI-compatible
 * server and a fresh workspace with `test-model` on it (handed to `started`, then to `more` for
 * further setup); before each test, the server forgets its requests and turns; after all, it stops.
 */
export function useFakeModelWorkspace(
  started: (s: FakeModelWorkspace) => void,
  more?: (s: FakeModelWorkspace) => Promise<void>,
): void {
  let fake: FakeOpenAi | undefined;
  before(async () => {
    fake = await startOpenAiServer();
    const ws = await newWorkspace();
    await configureFakeModel(ws.adminToken, fake);
    started({ fake, ws });
    await more?.({ fake, ws });
  });
  after(async () => fake?.close());
  beforeEach(() => fake?.reset());
}

export async function loadAgent(id: string): Promise<Agent> {
  const a = await h().service.store.repos.agents.get(id);
  if (!a) throw new Error(`no agent ${id}`);
  return a;
}

export function keyPrincipal(agent: Agent): Principal {
  return { kind: 'agentKey', keyId: 'key_test', workspaceId: agent.workspaceId, agentId: agent.id };
}

export function promptEntry(prompt: string, modelOverride: string | null = null): RunEntry {
  return { kind: 'http', id: null, name: 'test', handler: { kind: 'prompt', body: prompt }, modelOverride };
}

export function scriptEntry(script: string): RunEntry {
  return { kind: 'http', id: null, name: 'test', handler: { kind: 'script', body: script }, modelOverride: null };
}

export function httpInput(body: unknown, extra: Partial<RunInput> = {}): RunInput {
  return {
    surface: 'HTTP_API',
    method: 'POST',
    path: 'test',
    params: {},
    query: {},
    headers: {},
    body: body as RunInput['body'],
    ...extra,
  };
}

/** Runs `fn` and returns the DomainError it throws; fails when it succeeds or throws anything else. */
export async function refusal(fn: () => Promise<unknown>): Promise<DomainError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a refusal, but the call succeeded');
}
