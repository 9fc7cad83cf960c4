import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { newId } from '../../src/domain/ids.js';
import type { Json } from '../../src/domain/json.js';
import type { Principal } from '../../src/domain/principal.js';
import type { ModelMessage } from '../../src/domain/models/language-model.ports.js';
import type { RunService } from '../../src/domain/runtime/run.service.js';
import { MAX_CONTEXT_CHARS, OpenAiService } from '../../src/domain/surfaces/openai.service.js';
import { OpenAiApi } from '../../src/surfaces/openai/openai-api.js';
import { responseObject } from '../../src/surfaces/openai/response-object.js';
import { SurfaceAccess, type SurfaceCaller } from '../../src/domain/surfaces/surface-access.js';
import { h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { MovableClock } from '../helpers/movable-clock.js';
import { keyPrincipal } from '../helpers/runtime.js';
import {
  insertAgent,
  invalidShape,
  recordingPipeline,
  recordingStore,
  refusalShape,
  rejection,
  runResult,
} from '../helpers/service-fakes.js';

// The OpenAI-compatible API's service alone, below HTTP: what it hands the pipeline (entry, run
// input, options), what it stores and reads, and each refusal whole — including the guards that
// keep an over-long or NUL-holding id from being looked up at all, and the body-shape guards that
// run before the request reader.

const NOW = new Date(Date.UTC(2031, 4, 6, 7, 8, 9, 567));
const NOW_SECONDS = 1935817689;
const AGENT_CREATED_SECONDS = 1709528767;
const HEADERS = { 'x-trace': 'abc' };
const signal = () => new AbortController().signal;
const MODEL_REFUSAL = invalidShape('model: name the agent to call: its id, as GET /v1/models lists it', 'model');
const NOT_AN_OBJECT = invalidShape('The request body must be a JSON object');
/** The 404 of a response id: NotFound, or NotFoundParam naming the parameter that named it. */
const notFound = (id: string, field?: string) => ({
  class: field ? 'NotFoundParam' : 'NotFound',
  code: 'NOT_FOUND',
  message: `Response '${id}' not found`,
  details: undefined,
  field,
});

describe('OpenAI-compatible API: the service alone', () => {
  let ws: TestWorkspace;
  let workspaceId: string;
  let agent: Agent;
  let other: Agent;

  before(async () => {
    ws = await newWorkspace();
    workspaceId = ws.workspaceId;
    agent = await insertAgent(ws, { name: 'Alpha', description: 'First agent' });
    other = await insertAgent(ws, { name: 'Beta' });
  });

  /** The service on the harness store (calls recorded), a recording pipeline and a fixed clock. */
  function build(acceptsImages = false, clock = new MovableClock(NOW)) {
    const rec = recordingStore();
    const { pipeline, begun, run } = recordingPipeline();
    const real = h().service.services;
    const imageChecks: Agent[] = [];
    const runs = {
      toolNames: (a: Agent) => real.runs.toolNames(a),
      acceptsImages: async (a: Agent) => {
        imageChecks.push(a);
        return acceptsImages;
      },
    } as unknown as RunService;
    // The surface's reading and shaping over the domain service: requests and answers in OpenAI's wire format.
    const domain = new OpenAiService(rec.store, clock, pipeline, runs, new SurfaceAccess(rec.store, real.keys));
    const service = new OpenAiApi(domain);
    return { service, domain, rec, begun, run, imageChecks };
  }

  const callerOf = (a: Agent): SurfaceCaller => ({
    agent: a,
    principal: keyPrincipal(a),
    keyId: 'key_test',
    facts: {},
  });
  const request = (body: Json | undefined) => ({ headers: HEADERS, signal, body });
  const modelOf = (a: Agent) => ({
    id: a.id,
    object: 'model',
    created: AGENT_CREATED_SECONDS,
    owned_by: workspaceId,
    name: a.name,
    description: a.description,
  });

  async function storeResponse(
    agentId: string,
    over: { id?: string; context?: ModelMessage[]; createdAt?: Date; callerRef?: string | null } = {},
  ): Promise<string> {
    const id = over.id ?? newId('resp');
    await h().service.store.repos.responses.insert({
      id,
      agentId,
      // The caller of keyPrincipal; a response stored whole, as before chains.
      callerRef: over.callerRef === undefined ? 'agentKey:key_test' : over.callerRef,
      chained: false,
      previousResponseId: null,
      context: over.context ?? [{ role: 'user', content: 'Earlier' }],
      body: { id, object: 'response', marker: 'stored' },
      createdAt: over.createdAt ?? NOW,
    });
    return id;
  }

  describe('models', () => {
    it("lists the agent on its own URL, whole, and names the caller's entry", () => {
      const { service } = build();
      const caller = callerOf(agent);
      expect(service.agentModels(caller)).to.deep.equal({ object: 'list', data: [modelOf(agent)] });
      expect(caller.facts).to.deep.equal({ entry: 'models' });
    });

    it('lists on the workspace URL exactly the agents a workspace key may use with the surface on', async () => {
      const second = await newWorkspace();
      const surfaces = (on: boolean) => ({ ...agent.surfaces, OPENAI: { enabled: on, activityLogging: true } });
      const usable = await insertAgent(second, {
        allowWorkspaceKeys: true,
        surfaces: surfaces(true),
        name: 'Usable',
        description: '',
      });
      await insertAgent(second, { allowWorkspaceKeys: true, surfaces: surfaces(false) });
      await insertAgent(second, { allowWorkspaceKeys: false, surfaces: surfaces(true) });
      const { service, rec } = build();
      const principal: Principal & { kind: 'workspaceKey' } = {
        kind: 'workspaceKey',
        keyId: 'wk_1',
        workspaceId: second.workspaceId,
        scopes: [],
      };
      const listed = await service.workspaceModels(principal);
      expect(listed).to.deep.equal({
        object: 'list',
        data: [
          {
            id: usable.id,
            object: 'model',
            created: AGENT_CREATED_SECONDS,
            owned_by: second.workspaceId,
            name: 'Usable',
            description: '',
          },
        ],
      });
      expect(rec.calls.map((c) => c.name)).to.deep.equal(['agents.listByWorkspace']);
      expect(rec.argsOf('agents.listByWorkspace')).to.deep.equal([[second.workspaceId]]);
    });
  });

  describe('the agent a workspace request names in model', () => {
    it('finds the agent by its id', async () => {
      const { service, rec } = build();
      expect(await service.agentNamed({ model: agent.id, messages: [] })).to.deep.equal({ agent, id: agent.id });
      expect(rec.argsOf('agents.get')).to.deep.equal([[agent.id]]);
    });

    it('looks up an id of 200 characters, and never one of 201', async () => {
      const at = 'm'.repeat(200);
      const over = 'm'.repeat(201);
      const { service, rec } = build();
      expect(await service.agentNamed({ model: at })).to.deep.equal({ agent: null, id: at });
      expect(rec.argsOf('agents.get')).to.deep.equal([[at]]);
      expect(await service.agentNamed({ model: over })).to.deep.equal({ agent: null, id: over });
      expect(rec.argsOf('agents.get')).to.deep.equal([[at]]);
    });

    it('refuses a body that names no agent, naming model, before any lookup', async () => {
      const { service, rec } = build();
      // An array is no request object, even one that carries a `model` property.
      const array = Object.assign([agent.id], { model: agent.id }) as unknown as Json;
      for (const body of [undefined, null, 'a text', 42, array, {}, { model: 5 }, { model: '' }, { model: null }] as (
        Json | undefined
      )[]) {
        expect(refusalShape(await rejection(() => service.agentNamed(body))), JSON.stringify(body)).to.deep.equal(
          MODEL_REFUSAL,
        );
      }
      expect(rec.calls).to.deep.equal([]);
    });

    it('names the agent of a stored response, and none for an unknown id (without looking for an agent)', async () => {
      const id = await storeResponse(other.id);
      const { service, rec } = build();
      expect(await service.agentOfResponse(id)).to.deep.equal(other);
      expect(rec.calls.map((c) => [c.name, ...c.args])).to.deep.equal([
        ['responses.get', id],
        ['agents.get', other.id],
      ]);
      expect(await service.agentOfResponse('resp_unknown')).to.equal(null);
      expect(rec.calls.map((c) => c.name)).to.deep.equal(['responses.get', 'agents.get', 'responses.get']);
    });
  });

  describe('chat completions', () => {
    const body = {
      model: 'whatever',
      messages: [
        { role: 'system', content: 'Answer in French' },
        { role: 'user', content: 'Hello' },
      ],
    };
    const dialogue = {
      system: 'Answer in French',
      messages: [{ role: 'user', content: 'Hello' }],
      clientTools: [],
      settings: {},
    };

    it('begins the agent itself with the run input, dialogue and options, and answers the run, the call and its ids', async () => {
      const { service, begun, run, imageChecks } = build();
      const caller = callerOf(agent);
      const req = request(body);
      const admitted = await service.chatCompletion(caller, req);
      expect(begun).to.deep.equal([
        {
          principal: keyPrincipal(agent),
          agent,
          entry: {
            kind: 'chat',
            id: null,
            name: 'chat.completions',
            handler: { kind: 'prompt', body: '' },
            modelOverride: null,
          },
          input: {
            surface: 'OPENAI',
            method: 'POST',
            path: 'chat/completions',
            params: {},
            query: {},
            headers: HEADERS,
            body: 'Answer in French\n\nHello',
          },
          opts: { signal: req.signal, parent: undefined, dialogue },
        },
      ]);
      expect(begun[0]!.opts.signal).to.equal(req.signal);
      expect(admitted).to.deep.equal({
        run,
        call: { dialogue, stream: false, includeUsage: false, model: 'whatever', images: [] },
        ids: { id: 'chatcmpl-run_recorded', created: NOW_SECONDS, model: agent.id },
      });
      expect(caller.facts).to.deep.equal({ entry: 'chat.completions', requestBody: body, run });
      expect(imageChecks).to.deep.equal([]);
    });

    it('a body refused by the reader: the facts known by then, and no run', async () => {
      const { service, begun } = build();
      const caller = callerOf(agent);
      const bad = { messages: 'Hello' };
      expect(refusalShape(await rejection(() => service.chatCompletion(caller, request(bad))))).to.deep.equal(
        invalidShape('messages: Invalid input: expected array, received string', 'messages'),
      );
      expect(caller.facts).to.deep.equal({ entry: 'chat.completions', requestBody: bad });
      expect(begun).to.deep.equal([]);
    });

    const withImages: Json = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'https://example.test/a.png' } },
            { type: 'image_url', image_url: { url: 'https://example.test/b.png' } },
          ],
        },
      ],
    };

    it('refuses images to a model that takes none, naming the first image, before the run', async () => {
      const { service, begun, imageChecks } = build(false);
      expect(
        refusalShape(await rejection(() => service.chatCompletion(callerOf(agent), request(withImages)))),
      ).to.deep.equal(
        invalidShape(
          "messages[0].content[1].image_url: this agent's model does not take images; send text, or have an admin mark the model with configureModel(acceptsImages: true) if it takes them",
          'messages[0].content[1].image_url',
        ),
      );
      expect(imageChecks).to.deep.equal([agent]);
      expect(begun).to.deep.equal([]);
    });

    it('passes images to a model that takes them; the run input is the text only', async () => {
      const { service, begun, imageChecks } = build(true);
      await service.chatCompletion(callerOf(agent), request(withImages));
      expect(imageChecks).to.deep.equal([agent]);
      expect(begun).to.have.length(1);
      expect(begun[0]!.input.body).to.equal('Look');
      expect(begun[0]!.opts.dialogue!.messages).to.deep.equal([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image', url: 'https://example.test/a.png' },
            { type: 'image', url: 'https://example.test/b.png' },
          ],
        },
      ]);
    });
  });

  describe('responses: create', () => {
    it('a new response: the run input, the dialogue, the state, and the stored response once saved', async () => {
      const { service, begun, run, rec } = build();
      const caller = callerOf(agent);
      const body = { input: 'Hello', instructions: 'Be kind' };
      const req = request(body);
      const { save, ...created } = await service.createResponse(caller, req);
      const dialogue = {
        system: 'Be kind',
        clientTools: [],
        settings: {},
        messages: [{ role: 'user', content: 'Hello' }],
      };
      expect(begun).to.deep.equal([
        {
          principal: keyPrincipal(agent),
          agent,
          entry: {
            kind: 'chat',
            id: null,
            name: 'responses',
            handler: { kind: 'prompt', body: '' },
            modelOverride: null,
          },
          input: {
            surface: 'OPENAI',
            method: 'POST',
            path: 'responses',
            params: {},
            query: {},
            headers: HEADERS,
            body: 'Be kind\n\nHello',
          },
          opts: { signal: req.signal, parent: undefined, dialogue },
        },
      ]);
      expect(created.state.id).to.match(/^resp_[A-Za-z0-9_-]+$/);
      const echo = {
        model: agent.id,
        instructions: 'Be kind',
        tools: [],
        toolChoice: 'auto',
        text: { format: { type: 'text' } },
        temperature: null,
        topP: null,
        maxOutputTokens: null,
        metadata: {},
      };
      expect(created).to.deep.equal({
        run,
        stream: false,
        state: {
          id: created.state.id,
          createdAt: NOW_SECONDS,
          status: 'in_progress',
          echo,
          previousResponseId: null,
          store: true,
          output: [],
        },
      });
      expect(caller.facts).to.deep.equal({ entry: 'responses', requestBody: body, run });
      expect(rec.calls).to.deep.equal([]);

      await save(runResult('Hi!'));
      expect(await h().service.store.repos.responses.get(created.state.id)).to.deep.equal({
        id: created.state.id,
        agentId: agent.id,
        callerRef: 'agentKey:key_test',
        previousResponseId: null,
        context: [
          { role: 'user', content: 'Hello' },
          { role: 'assistant', content: 'Hi!' },
        ],
        chained: true,
        body: responseObject(created.state),
        createdAt: NOW,
      });
    });

    it('continues a stored response: its context, then this request’s turns; the run input is the new turns only', async () => {
      const context: ModelMessage[] = [
        { role: 'user', content: 'Earlier' },
        { role: 'assistant', content: 'Answered' },
      ];
      const previous = await storeResponse(agent.id, { context });
      const { service, begun, rec } = build();
      const { save, state } = await service.createResponse(
        callerOf(agent),
        request({ input: 'Next', previous_response_id: previous, stream: true }),
      );
      const messages = [...context, { role: 'user', content: 'Next' }];
      expect(rec.argsOf('responses.get')).to.deep.equal([[previous]]);
      expect(begun[0]!.input).to.deep.equal({
        surface: 'OPENAI',
        method: 'POST',
        path: 'responses',
        params: {},
        query: {},
        headers: HEADERS,
        body: 'Next',
      });
      expect(begun[0]!.opts.dialogue).to.deep.equal({ system: '', clientTools: [], settings: {}, messages });
      expect(state.previousResponseId).to.equal(previous);

      await save(runResult({ answer: 42 }));
      const stored = await h().service.store.repos.responses.get(state.id);
      expect(stored!.previousResponseId).to.equal(previous);
      // Only the turns this response added: the context before it is the previous response's.
      expect(stored!.context).to.deep.equal([
        { role: 'user', content: 'Next' },
        { role: 'assistant', content: '{"answer":42}' },
      ]);
      expect(stored!.chained).to.equal(true);
      expect(stored!.callerRef).to.equal('agentKey:key_test');
    });

    it('keeps nothing for store: false, nor for a failed run', async () => {
      const { service, rec } = build();
      const unstored = await service.createResponse(callerOf(agent), request({ input: 'Hello', store: false }));
      expect(unstored.state.store).to.equal(false);
      await unstored.save(runResult('Hi!'));
      const failed = await service.createResponse(callerOf(agent), request({ input: 'Hello' }));
      await failed.save(runResult(null, { kind: 'model', message: 'The model failed' }));
      expect(rec.argsOf('responses.insert')).to.deep.equal([]);
      expect(await h().service.store.repos.responses.get(unstored.state.id)).to.equal(null);
      expect(await h().service.store.repos.responses.get(failed.state.id)).to.equal(null);
    });

    const previousRefusal = (id: string) => notFound(id, 'previous_response_id');

    it("refuses another agent's response as previous_response_id (404 naming it, before the body), and begins nothing", async () => {
      const others = await storeResponse(other.id);
      const { service, begun } = build();
      const caller = callerOf(agent);
      const body = { previous_response_id: others, input: 5 };
      expect(refusalShape(await rejection(() => service.createResponse(caller, request(body))))).to.deep.equal(
        previousRefusal(others),
      );
      expect(caller.facts).to.deep.equal({ entry: 'responses', requestBody: body });
      expect(begun).to.deep.equal([]);
    });

    it('looks up a previous_response_id of 200 characters, never one of 201 or one holding U+0000', async () => {
      const at = await storeResponse(agent.id, { id: `resp_${'a'.repeat(195)}` });
      const over = `resp_${'a'.repeat(196)}`;
      const nul = `${at.slice(0, 10)}\u0000`;
      const { service, rec, begun } = build();
      await service.createResponse(callerOf(agent), request({ input: 'Hi', previous_response_id: at }));
      expect(begun[0]!.opts.dialogue!.messages).to.deep.equal([
        { role: 'user', content: 'Earlier' },
        { role: 'user', content: 'Hi' },
      ]);
      for (const id of [over, nul]) {
        expect(
          refusalShape(
            await rejection(() =>
              service.createResponse(callerOf(agent), request({ input: 'Hi', previous_response_id: id })),
            ),
          ),
        ).to.deep.equal(previousRefusal(id));
      }
      expect(rec.argsOf('responses.get')).to.deep.equal([[at]]);
    });

    it('reads previous_response_id only from a request object holding a string, and leaves other bodies to the reader', async () => {
      const stored = await storeResponse(agent.id);
      const { service, rec, begun } = build();
      const array = Object.assign([], { previous_response_id: stored, input: 'Hi' }) as unknown as Json;
      for (const body of [null, array, 'text']) {
        expect(
          refusalShape(await rejection(() => service.createResponse(callerOf(agent), request(body)))),
        ).to.deep.equal(NOT_AN_OBJECT);
      }
      expect(
        refusalShape(
          await rejection(() =>
            service.createResponse(callerOf(agent), request({ input: 'Hi', previous_response_id: 5 })),
          ),
        ),
      ).to.deep.equal(
        invalidShape('previous_response_id: Invalid input: expected string, received number', 'previous_response_id'),
      );
      expect(rec.calls).to.deep.equal([]);
      expect(begun).to.deep.equal([]);
    });

    it(`continues a conversation of exactly ${MAX_CONTEXT_CHARS} characters, and refuses one of a character more`, async () => {
      // The context holds one long turn; the new turn 'a' brings the conversation to the limit, 'ab' one over.
      const frame = JSON.stringify([
        { role: 'user', content: '' },
        { role: 'user', content: 'a' },
      ]).length;
      const previous = await storeResponse(agent.id, {
        context: [{ role: 'user', content: 'x'.repeat(MAX_CONTEXT_CHARS - frame) }],
      });
      const { service, begun } = build();
      await service.createResponse(callerOf(agent), request({ input: 'a', previous_response_id: previous }));
      expect(JSON.stringify(begun[0]!.opts.dialogue!.messages).length).to.equal(MAX_CONTEXT_CHARS);
      expect(
        refusalShape(
          await rejection(() =>
            service.createResponse(callerOf(agent), request({ input: 'ab', previous_response_id: previous })),
          ),
        ),
      ).to.deep.equal(
        invalidShape(
          'previous_response_id: the conversation has grown past 2000000 characters; start a new one without previous_response_id',
          'previous_response_id',
        ),
      );
      expect(begun).to.have.length(1);
      // A new conversation is not bound by it: only what a stored response carries on is.
      await service.createResponse(callerOf(agent), request({ input: 'y'.repeat(MAX_CONTEXT_CHARS) }));
      expect(begun).to.have.length(2);
    });

    it("refuses images in a response's input to a model that takes none, naming the first", async () => {
      const { service, begun, imageChecks } = build(false);
      const input: Json = [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look' },
            { type: 'input_image', image_url: 'https://example.test/a.png' },
          ],
        },
      ];
      expect(
        refusalShape(await rejection(() => service.createResponse(callerOf(agent), request({ input })))),
      ).to.deep.equal(
        invalidShape(
          "input[0].content[1].image_url: this agent's model does not take images; send text, or have an admin mark the model with configureModel(acceptsImages: true) if it takes them",
          'input[0].content[1].image_url',
        ),
      );
      expect(imageChecks).to.deep.equal([agent]);
      expect(begun).to.deep.equal([]);
      const accepting = build(true);
      await accepting.service.createResponse(callerOf(agent), request({ input }));
      expect(accepting.begun).to.have.length(1);
    });
  });

  describe('responses: read, delete, prune', () => {
    it("reads back a stored response of the agent, whole; another agent's is not found", async () => {
      const id = await storeResponse(agent.id);
      const { service } = build();
      const caller = callerOf(agent);
      expect(await service.getResponse(caller, id)).to.deep.equal({ id, object: 'response', marker: 'stored' });
      expect(caller.facts).to.deep.equal({ entry: 'responses' });
      const foreign = callerOf(other);
      expect(refusalShape(await rejection(() => service.getResponse(foreign, id)))).to.deep.equal(notFound(id));
      expect(foreign.facts).to.deep.equal({ entry: 'responses' });
    });

    it('reads an id of 200 characters, never one of 201 or one holding U+0000', async () => {
      const at = await storeResponse(agent.id, { id: `resp_${'b'.repeat(195)}` });
      const { service, rec } = build();
      expect(await service.getResponse(callerOf(agent), at)).to.deep.equal({
        id: at,
        object: 'response',
        marker: 'stored',
      });
      for (const id of [`${at}b`, `resp_\u0000`]) {
        expect(refusalShape(await rejection(() => service.getResponse(callerOf(agent), id)))).to.deep.equal(
          notFound(id),
        );
      }
      expect(rec.argsOf('responses.get')).to.deep.equal([[at]]);
    });

    it("deletes the agent's own response once; another agent's stays", async () => {
      const id = await storeResponse(agent.id);
      const { service, rec } = build();
      const foreign = callerOf(other);
      expect(refusalShape(await rejection(() => service.deleteResponse(foreign, id)))).to.deep.equal(notFound(id));
      expect(foreign.facts).to.deep.equal({ entry: 'responses' });
      expect(await h().service.store.repos.responses.get(id)).to.not.equal(null);
      const caller = callerOf(agent);
      expect(await service.deleteResponse(caller, id)).to.deep.equal({ id, object: 'response.deleted', deleted: true });
      expect(caller.facts).to.deep.equal({ entry: 'responses' });
      expect(await h().service.store.repos.responses.get(id)).to.equal(null);
      expect(refusalShape(await rejection(() => service.deleteResponse(caller, id)))).to.deep.equal(notFound(id));
      expect(rec.argsOf('responses.delete')).to.deep.equal([
        [id, other.id, 'agentKey:key_test'],
        [id, agent.id, 'agentKey:key_test'],
        [id, agent.id, 'agentKey:key_test'],
      ]);
    });

    it('prunes the responses created before the 30-day retention, up to the limit; one created exactly at the cutoff stays', async () => {
      // Long ago, so that no other test's responses are that old.
      const now = new Date(Date.UTC(2001, 2, 4, 0, 0, 0, 0));
      const cutoff = new Date(now.getTime() - 30 * 86_400_000);
      const atCutoff = await storeResponse(agent.id, { createdAt: cutoff });
      const older = [
        await storeResponse(agent.id, { createdAt: new Date(cutoff.getTime() - 1) }),
        await storeResponse(agent.id, { createdAt: new Date(cutoff.getTime() - 2) }),
      ];
      const { domain: service, rec } = build(false, new MovableClock(now));
      expect(await service.pruneResponses(1)).to.equal(1);
      expect(await service.pruneResponses()).to.equal(1);
      expect(await service.pruneResponses()).to.equal(0);
      expect(rec.argsOf('responses.pruneBefore')).to.deep.equal([
        [cutoff, 1],
        [cutoff, 1000],
        [cutoff, 1000],
      ]);
      for (const id of older) expect(await h().service.store.repos.responses.get(id)).to.equal(null);
      expect(await h().service.store.repos.responses.get(atCutoff)).to.not.equal(null);
    });
  });
});
