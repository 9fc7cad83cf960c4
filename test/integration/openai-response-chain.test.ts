import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { newId } from '../../src/domain/ids.js';
import type { Json } from '../../src/domain/json.js';
import type { Principal } from '../../src/domain/principal.js';
import type { ModelMessage } from '../../src/domain/models/language-model.ports.js';
import type { RunService } from '../../src/domain/runtime/run.service.js';
import { MAX_CHAIN_RESPONSES, OpenAiService } from '../../src/domain/surfaces/openai.service.js';
import { OpenAiApi } from '../../src/surfaces/openai/openai-api.js';
import { SurfaceAccess, type SurfaceCaller } from '../../src/domain/surfaces/surface-access.js';
import { h, newWorkspace } from '../helpers/harness.js';
import { MovableClock } from '../helpers/movable-clock.js';
import { keyPrincipal } from '../helpers/runtime.js';
import {
  insertAgent,
  recordingPipeline,
  recordingStore,
  refusalShape,
  rejection,
  runResult,
} from '../helpers/service-fakes.js';

// Stored responses below HTTP (issue 49, items 12 and 13): a response belongs to the key, workspace
// key or grant that made it; a continuation stores only the turns it adds and a link, and the
// conversation is rebuilt by walking the links back — through the caller's own responses only, to a
// response stored whole, a deleted one, or at most MAX_CHAIN_RESPONSES.

const NOW = new Date(Date.UTC(2031, 4, 6, 7, 8, 9, 567));
const KEY = 'agentKey:key_test';
const signal = () => new AbortController().signal;
const notFound = (id: string, field?: string) => ({
  class: field ? 'NotFoundParam' : 'NotFound',
  code: 'NOT_FOUND',
  message: `Response '${id}' not found`,
  details: undefined,
  field,
});

describe('OpenAI-compatible API: stored responses belong to their caller and chain their turns', () => {
  let agent: Agent;

  before(async () => {
    agent = await insertAgent(await newWorkspace(), { name: 'Chained' });
  });

  function build() {
    const rec = recordingStore();
    const { pipeline, begun } = recordingPipeline();
    const runs = { toolNames: () => [], acceptsImages: async () => false } as unknown as RunService;
    // The surface's reading and shaping over the domain service: requests in OpenAI's wire format.
    const service = new OpenAiApi(
      new OpenAiService(
        rec.store,
        new MovableClock(NOW),
        pipeline,
        runs,
        new SurfaceAccess(rec.store, h().service.services.keys),
      ),
    );
    return { service, rec, begun };
  }

  const as = (principal: Principal): SurfaceCaller => ({ agent, principal, keyId: null, facts: {} });
  const mine = () => as(keyPrincipal(agent));
  const request = (body: Json) => ({ headers: {}, signal, body });
  const turn = (content: string): ModelMessage => ({ role: 'user', content });

  async function store(over: {
    previous?: string | null;
    context: ModelMessage[];
    chained?: boolean;
    callerRef?: string | null;
  }): Promise<string> {
    const id = newId('resp');
    await h().service.store.repos.responses.insert({
      id,
      agentId: agent.id,
      callerRef: over.callerRef === undefined ? KEY : over.callerRef,
      previousResponseId: over.previous ?? null,
      context: over.context,
      chained: over.chained ?? true,
      body: { id, object: 'response' },
      createdAt: NOW,
    });
    return id;
  }

  /** The messages a continuation of `id` by `caller` hands the model. */
  async function continued(id: string, caller = mine()): Promise<ModelMessage[]> {
    const { service, begun } = build();
    await service.createResponse(caller, request({ input: 'Next', previous_response_id: id }));
    return begun[0]!.opts.dialogue!.messages;
  }

  it('another agent key, a workspace key or an OAuth grant of the same agent gets 404 reading, deleting or continuing it; nothing is deleted', async () => {
    const id = await store({ context: [turn('Secret')] });
    const { service, begun } = build();
    const strangers: Principal[] = [
      { kind: 'agentKey', keyId: 'key_second', workspaceId: agent.workspaceId, agentId: agent.id },
      { kind: 'workspaceKey', keyId: 'key_test', workspaceId: agent.workspaceId, scopes: [] },
      {
        kind: 'oauthGrant',
        grantId: 'key_test',
        clientId: 'c',
        memberId: 'm',
        workspaceId: agent.workspaceId,
        agentId: agent.id,
      },
    ];
    for (const p of strangers) {
      expect(refusalShape(await rejection(() => service.getResponse(as(p), id))), p.kind).to.deep.equal(notFound(id));
      expect(refusalShape(await rejection(() => service.deleteResponse(as(p), id))), p.kind).to.deep.equal(
        notFound(id),
      );
      expect(
        refusalShape(
          await rejection(() => service.createResponse(as(p), request({ input: 'x', previous_response_id: id }))),
        ),
        p.kind,
      ).to.deep.equal(notFound(id, 'previous_response_id'));
    }
    expect(begun).to.deep.equal([]);
    expect(await service.getResponse(mine(), id)).to.deep.equal({ id, object: 'response' });
  });

  it('a response stored before callers were kept is read by no one', async () => {
    const id = await store({ context: [turn('Old')], chained: false, callerRef: null });
    const { service } = build();
    expect(refusalShape(await rejection(() => service.getResponse(mine(), id)))).to.deep.equal(notFound(id));
    expect(refusalShape(await rejection(() => service.deleteResponse(mine(), id)))).to.deep.equal(notFound(id));
  });

  it('rebuilds the conversation from the chain, oldest first, starting at a response stored whole', async () => {
    const whole = await store({ context: [turn('w1'), turn('w2')], chained: false });
    const a = await store({ previous: whole, context: [turn('a')] });
    const b = await store({ previous: a, context: [turn('b1'), turn('b2')] });
    expect((await continued(b)).map((m) => m.content)).to.deep.equal(['w1', 'w2', 'a', 'b1', 'b2', 'Next']);
    // A response stored whole is the conversation itself, with no walk.
    const { service, rec } = build();
    await service.createResponse(mine(), request({ input: 'Next', previous_response_id: whole }));
    expect(rec.argsOf('responses.chain')).to.deep.equal([]);
    expect((await continued(a)).map((m) => m.content)).to.deep.equal(['w1', 'w2', 'a', 'Next']);
  });

  it('a deleted response ends the walk: the conversation starts after it', async () => {
    const a = await store({ context: [turn('a')] });
    const b = await store({ previous: a, context: [turn('b')] });
    const c = await store({ previous: b, context: [turn('c')] });
    await build().service.deleteResponse(mine(), b);
    expect((await continued(c)).map((m) => m.content)).to.deep.equal(['c', 'Next']);
  });

  it("never walks into another caller's or another agent's response", async () => {
    const foreign = await store({ context: [turn('foreign')], callerRef: 'agentKey:key_second' });
    const own = await store({ previous: foreign, context: [turn('own')] });
    expect((await continued(own)).map((m) => m.content)).to.deep.equal(['own', 'Next']);
    const other = await insertAgent(await newWorkspace());
    const elsewhere = newId('resp');
    await h().service.store.repos.responses.insert({
      id: elsewhere,
      agentId: other.id,
      callerRef: KEY,
      previousResponseId: null,
      context: [turn('elsewhere')],
      chained: true,
      body: {},
      createdAt: NOW,
    });
    const after = await store({ previous: elsewhere, context: [turn('after')] });
    expect((await continued(after)).map((m) => m.content)).to.deep.equal(['after', 'Next']);
  });

  it(`refuses a continuation past ${MAX_CHAIN_RESPONSES} chained responses, and takes one of exactly that many`, async () => {
    const ids = Array.from({ length: MAX_CHAIN_RESPONSES + 1 }, () => newId('resp'));
    await h()
      .db('openai_responses')
      .insert(
        ids.map((id, i) => ({
          id,
          agent_id: agent.id,
          caller_ref: KEY,
          previous_response_id: i ? ids[i - 1] : null,
          context: JSON.stringify([turn(`t${i}`)]),
          chained: true,
          body: '{}',
          created_at: NOW,
        })),
      );
    const { service, begun } = build();
    const refused = refusalShape(
      await rejection(() =>
        service.createResponse(mine(), request({ input: 'x', previous_response_id: ids[MAX_CHAIN_RESPONSES]! })),
      ),
    );
    expect(refused).to.deep.include({ code: 'INVALID', field: 'previous_response_id' });
    expect(refused.message).to.include(`past ${MAX_CHAIN_RESPONSES} responses`);
    expect(begun).to.deep.equal([]);
    const messages = await continued(ids[MAX_CHAIN_RESPONSES - 1]!);
    expect(messages).to.have.length(MAX_CHAIN_RESPONSES + 1);
    expect(messages[0]!.content).to.equal('t0');
  });

  it('stores the turns a continuation adds, with the link, whatever the length of the chain', async () => {
    const a = await store({ context: [turn('x'.repeat(5000))] });
    const { service } = build();
    const { save, state } = await service.createResponse(mine(), request({ input: 'short', previous_response_id: a }));
    await save(runResult('ok'));
    const stored = await h().service.store.repos.responses.get(state.id);
    expect(stored).to.deep.include({ previousResponseId: a, chained: true, callerRef: KEY });
    expect(stored!.context).to.deep.equal([turn('short'), { role: 'assistant', content: 'ok' }]);
  });
});
