import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { HISTORY_TURNS } from '../../src/domain/surfaces/chat.service.js';
import type { McpTool } from '../../src/domain/entries/entry.entities.js';
import { Conflict } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import type { Json } from '../../src/domain/json.js';
import { A2aService, conversationIdOf, type A2aMessage } from '../../src/domain/surfaces/a2a.service.js';
import { McpService } from '../../src/domain/surfaces/mcp.service.js';
import type { SurfaceCaller } from '../../src/domain/surfaces/surface-access.js';
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

// The A2A server's service alone, below the protocol bindings: the card's skills, what a message
// hands the pipeline (a skill call or the agent's chat with its history), how a chat run's turns are
// kept — including two first messages of one context at once — and the tasks it stores.

const NOW = new Date(Date.UTC(2031, 4, 6, 7, 8, 9, 567));
const HEADERS = { 'x-trace': 'abc' };
const signal = () => new AbortController().signal;
/** The caller of keyPrincipal: the test agent key. */
const CALLER = 'agentKey:key_test';
const CHAT_ENTRY = { kind: 'chat', id: null, name: 'chat', handler: { kind: 'prompt', body: '' }, modelOverride: null };

describe('A2A server: the service alone', () => {
  let ws: TestWorkspace;
  let workspaceId: string;
  let agent: Agent;
  let lookup: McpTool;
  let shout: McpTool;

  async function insertTool(agentId: string, over: Partial<McpTool>): Promise<McpTool> {
    return h().service.store.repos.mcpTools.insert({
      id: newId('tool'),
      agentId,
      name: 'tool',
      description: '',
      handler: { kind: 'script', body: 'return 1;' },
      modelOverride: null,
      inputSchema: null,
      outputSchema: null,
      createdAt: NOW,
      updatedAt: NOW,
      ...over,
    });
  }

  before(async () => {
    ws = await newWorkspace();
    workspaceId = ws.workspaceId;
    agent = await insertAgent(ws, { name: 'Weatherman', description: 'Tells the weather' });
    shout = await insertTool(agent.id, { name: 'shout', description: 'Shouts' });
    lookup = await insertTool(agent.id, {
      name: 'lookup',
      description: 'Looks the weather up',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      outputSchema: { type: 'object', properties: { temp: { type: 'number' } }, required: ['temp'] },
    });
  });

  /** The service on the harness store (calls recorded, `replace` swapping some), a recording pipeline and a movable clock. */
  function build(replace: Parameters<typeof recordingStore>[0] = {}) {
    const rec = recordingStore(replace);
    const { pipeline, begun, run } = recordingPipeline();
    const clock = new MovableClock(NOW);
    const service = new A2aService(rec.store, clock, pipeline, new McpService(rec.store, pipeline));
    return { service, rec, begun, run, clock };
  }

  const callerOf = (a: Agent): SurfaceCaller => ({
    agent: a,
    principal: keyPrincipal(a),
    keyId: 'key_test',
    facts: {},
  });
  const request = { headers: HEADERS, signal };
  const message = (over: Partial<A2aMessage>): A2aMessage => ({ text: 'Hello', contextId: '', ...over });
  const turnsOf = (agentId: string, contextId: string) =>
    h().service.store.repos.conversations.recentTurns(conversationIdOf(agentId, CALLER, contextId), 10);

  it("names a context's conversation by a hash of agent, caller and context", () => {
    expect(conversationIdOf('agt_1', CALLER, 'ctx-1')).to.match(/^a2a_[A-Za-z0-9_-]{32}$/);
    expect(conversationIdOf('agt_1', CALLER, 'ctx-1')).to.not.equal(conversationIdOf('agt_1', null, 'ctx-1'));
  });

  it('shows the card publicly only for a workspace-visible agent with the surface on', () => {
    const { service } = build();
    const withA2a = (enabled: boolean) => ({ ...agent.surfaces, A2A: { enabled, activityLogging: true } });
    expect(service.cardIsPublic({ ...agent, visibility: 'WORKSPACE', surfaces: withA2a(true) })).to.equal(true);
    expect(service.cardIsPublic({ ...agent, visibility: 'WORKSPACE', surfaces: withA2a(false) })).to.equal(false);
    expect(service.cardIsPublic({ ...agent, visibility: 'PRIVATE', surfaces: withA2a(true) })).to.equal(false);
  });

  describe('skills', () => {
    it('lists the chat first (by the agent’s name and description), then a skill per MCP tool by name', async () => {
      const { service } = build();
      expect(await service.skills(agent)).to.deep.equal([
        { id: 'chat', name: 'Weatherman', description: 'Tells the weather', structured: false },
        { id: 'lookup', name: 'lookup', description: 'Looks the weather up', structured: true },
        { id: 'shout', name: 'shout', description: 'Shouts', structured: false },
      ]);
    });

    it('describes the chat by the agent’s name, never its instructions, when the agent has no description; no chat without instructions', async () => {
      const { service } = build();
      const instructions = `The refund password is hunter2. ${'i'.repeat(300)}TAIL`;
      const undescribed = await insertAgent(ws, { name: 'Quiet', description: '', instructions });
      expect(await service.skills(undescribed)).to.deep.equal([
        { id: 'chat', name: 'Quiet', description: 'Chat with Quiet', structured: false },
      ]);
      const blank = await insertAgent(ws, { instructions: ' \n\t ' });
      await insertTool(blank.id, { name: 'only', description: 'The one tool' });
      expect(await service.skills(blank)).to.deep.equal([
        { id: 'only', name: 'only', description: 'The one tool', structured: false },
      ]);
    });
  });

  describe('a message naming a skill', () => {
    it("runs the skill's MCP tool with the data part as its arguments, and keeps no conversation", async () => {
      const { service, rec, begun, run } = build();
      const caller = callerOf(agent);
      const { record, ...begunRun } = await service.begin(
        caller,
        message({ text: 'ignored', data: { city: 'Paris' }, skillId: 'lookup', contextId: 'ctx-skill' }),
        request,
      );
      expect(begun).to.deep.equal([
        {
          principal: keyPrincipal(agent),
          agent,
          entry: { kind: 'mcp', id: lookup.id, name: 'lookup', handler: lookup.handler, modelOverride: null },
          input: {
            surface: 'A2A',
            method: 'SendMessage',
            path: 'lookup',
            params: {},
            query: {},
            headers: HEADERS,
            body: { city: 'Paris' },
          },
          opts: { signal, parent: undefined },
        },
      ]);
      expect(begunRun).to.deep.equal({ run, tool: lookup });
      expect(caller.facts).to.deep.equal({ run });
      await record('ctx-skill', runResult('done'));
      expect(rec.calls.map((c) => c.name)).to.deep.equal(['mcpTools.listByAgents']);
      expect(await turnsOf(agent.id, 'ctx-skill')).to.deep.equal([]);
    });

    it('gives a skill without a data part the message text as its input', async () => {
      const { service, begun } = build();
      const { tool } = await service.begin(callerOf(agent), message({ text: 'be loud', skillId: 'shout' }), request);
      expect(tool).to.deep.equal(shout);
      expect(begun[0]!.input.body).to.deep.equal({ input: 'be loud' });
      expect(begun[0]!.entry.name).to.equal('shout');
    });

    it('refuses before any run: a skill the agent lacks, data that is no object, arguments against the schema', async () => {
      const { service, begun } = build();
      const refusal = async (m: Partial<A2aMessage>) =>
        refusalShape(await rejection(() => service.begin(callerOf(agent), message(m), request)));
      expect(await refusal({ skillId: 'nope' })).to.deep.equal(
        invalidShape(
          "message.metadata.skillId: the agent has no skill 'nope'; its card lists the skills",
          'message.metadata.skillId',
        ),
      );
      for (const data of [[{ city: 'Paris' }], 'Paris', 0] as Json[]) {
        expect(await refusal({ skillId: 'lookup', data }), JSON.stringify(data)).to.deep.equal(
          invalidShape("The data part of a call of skill 'lookup' must be a JSON object", 'message.parts'),
        );
      }
      expect(await refusal({ skillId: 'lookup', data: { town: 'Paris' } })).to.deep.equal(
        invalidShape("Invalid arguments for tool 'lookup': city: is required", 'city'),
      );
      expect(begun).to.deep.equal([]);
    });
  });

  describe("a chat message and its context's conversation", () => {
    it('runs the agent’s chat with the text and no history when it names no context (also for the chat skill), reading nothing', async () => {
      const { service, rec, begun, run } = build();
      const caller = callerOf(agent);
      const first = await service.begin(caller, message({ text: 'Hello' }), request);
      await service.begin(callerOf(agent), message({ text: 'Hello', skillId: 'chat' }), request);
      const expected = {
        principal: keyPrincipal(agent),
        agent,
        entry: CHAT_ENTRY,
        input: {
          surface: 'A2A',
          method: 'SendMessage',
          path: 'chat',
          params: {},
          query: {},
          headers: HEADERS,
          body: 'Hello',
        },
        opts: { signal, history: [], parent: undefined },
      };
      expect(begun).to.deep.equal([expected, expected]);
      expect(first.run).to.equal(run);
      expect(first.tool).to.equal(undefined);
      expect(caller.facts).to.deep.equal({ run });
      expect(rec.calls).to.deep.equal([]);
    });

    it('refuses a chat message without text before any read or run', async () => {
      const { service, rec, begun } = build();
      expect(
        refusalShape(
          await rejection(() =>
            service.begin(callerOf(agent), message({ text: ' \n ', contextId: 'ctx-empty' }), request),
          ),
        ),
      ).to.deep.equal(
        invalidShape(
          'The message has no text: send a text part, or name a skill in metadata.skillId with a data part',
          'message.parts',
        ),
      );
      expect(rec.calls).to.deep.equal([]);
      expect(begun).to.deep.equal([]);
    });

    it('keeps the turns of each successful run in the conversation its record names, and gives them back as the next message’s history', async () => {
      const { service, rec, begun, clock } = build();
      const conversationId = conversationIdOf(agent.id, CALLER, 'ctx-kept');
      // The server named the context: the message carried none, the record names it.
      const first = await service.begin(callerOf(agent), message({ text: 'Hello' }), request);
      await first.record('ctx-kept', runResult('Hi there'));
      const at = new Date(NOW.getTime() + 1);
      expect(await h().service.store.repos.conversations.get(conversationId)).to.deep.equal({
        id: conversationId,
        agentId: agent.id,
        visitorId: null,
        createdAt: NOW,
        updatedAt: at,
      });
      const turns = await turnsOf(agent.id, 'ctx-kept');
      expect(turns.map((t) => t.id)).to.satisfy(
        (ids: string[]) => ids.every((id) => /^turn_/.test(id)) && ids[0] !== ids[1],
      );
      expect(turns.map(({ id: _id, ...t }) => t)).to.deep.equal([
        { conversationId, role: 'user', content: 'Hello', runId: 'run_recorded', createdAt: NOW },
        { conversationId, role: 'assistant', content: 'Hi there', runId: 'run_recorded', createdAt: at },
      ]);

      clock.advance(60_000);
      const second = await service.begin(
        callerOf(agent),
        message({ text: 'And tomorrow?', contextId: 'ctx-kept' }),
        request,
      );
      expect(rec.argsOf('conversations.recentTurns')).to.deep.equal([[conversationId, HISTORY_TURNS]]);
      expect(begun[1]!.opts.history).to.deep.equal([
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi there' },
      ]);
      // Output that is not text (a JSON answer) is kept as its JSON text.
      await second.record('ctx-kept', runResult({ answer: 42 }));
      const [, secondTurns] = rec.argsOf('conversations.addTurns')[1] as [string, { role: string; content: unknown }[]];
      expect(secondTurns.map((t) => [t.role, t.content])).to.deep.equal([
        ['user', 'And tomorrow?'],
        ['assistant', '{"answer":42}'],
      ]);
      const later = new Date(NOW.getTime() + 60_001);
      expect((await turnsOf(agent.id, 'ctx-kept')).slice(2).map((t) => [t.role, t.content, t.createdAt])).to.deep.equal(
        [
          ['user', 'And tomorrow?', new Date(NOW.getTime() + 60_000)],
          ['assistant', '{"answer":42}', later],
        ],
      );
      expect((await h().service.store.repos.conversations.get(conversationId))!.updatedAt).to.deep.equal(later);
      // Only the first message of the context created its conversation.
      expect(rec.argsOf('conversations.insert')).to.have.length(1);
    });

    it('keeps nothing of a failed run', async () => {
      const { service, rec } = build();
      const started = await service.begin(callerOf(agent), message({ text: 'Hello' }), request);
      await started.record('ctx-failed', runResult(null, { kind: 'model', message: 'The model failed' }));
      expect(rec.calls).to.deep.equal([]);
      expect(
        await h().service.store.repos.conversations.get(conversationIdOf(agent.id, CALLER, 'ctx-failed')),
      ).to.equal(null);
    });

    it('two first messages of one context at once: both find no conversation, one creates it, the other’s Conflict is no failure, all turns are kept', async () => {
      // Both reads answer before either message creates the conversation.
      const waiting: (() => void)[] = [];
      const { service, rec } = build({
        'conversations.get': async (real, id) => {
          const found = await real(id);
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            if (waiting.length === 2) waiting.forEach((w) => w());
          });
          return found;
        },
      });
      const a = await service.begin(callerOf(agent), message({ text: 'First A' }), request);
      const b = await service.begin(callerOf(agent), message({ text: 'First B' }), request);
      await Promise.all([a.record('ctx-race', runResult('Answer A')), b.record('ctx-race', runResult('Answer B'))]);
      expect(rec.argsOf('conversations.insert')).to.have.length(2);
      const contents = (await turnsOf(agent.id, 'ctx-race')).map((t) => `${t.role}:${t.content}`).sort();
      expect(contents).to.deep.equal(['assistant:Answer A', 'assistant:Answer B', 'user:First A', 'user:First B']);
    });

    it('fails the record when creating the conversation fails for any other reason, keeping no turns', async () => {
      const failure = new Error('disk full');
      const { service, rec } = build({
        'conversations.insert': async () => {
          throw failure;
        },
      });
      const started = await service.begin(callerOf(agent), message({ text: 'Hello' }), request);
      expect(await rejection(() => started.record('ctx-broken', runResult('Hi')))).to.equal(failure);
      expect(rec.argsOf('conversations.addTurns')).to.deep.equal([]);
      // A Conflict, by contrast, is the other first message having won.
      const conversationId = conversationIdOf(agent.id, CALLER, 'ctx-broken');
      await h().service.store.repos.conversations.insert({
        id: conversationId,
        agentId: agent.id,
        visitorId: null,
        createdAt: NOW,
        updatedAt: NOW,
      });
      // The conversation exists now but this record does not see it: it tries to create it and meets the Conflict.
      const blind = build({
        'conversations.get': async () => null,
        'conversations.insert': async () => {
          throw new Conflict('taken');
        },
      });
      const late = await blind.service.begin(callerOf(agent), message({ text: 'Hello' }), request);
      await late.record('ctx-broken', runResult('Hi'));
      expect(blind.rec.argsOf('conversations.addTurns')).to.have.length(1);
      expect((await turnsOf(agent.id, 'ctx-broken')).map((t) => t.content)).to.deep.equal(['Hello', 'Hi']);
    });
  });

  describe('tasks', () => {
    const task = (id: string, state = 'TASK_STATE_WORKING', contextId = 'ctx-t') => ({
      id,
      contextId,
      state,
      task: { id, status: { state } },
    });
    const mine = () => ({ agentId: agent.id, callerRef: CALLER });

    it("stores the caller's task and reads it back whole; another agent or another key of the agent reads none", async () => {
      const { service, clock } = build();
      const id = `task-${newId('t')}`;
      expect(service.scopeOf(callerOf(agent))).to.deep.equal(mine());
      await service.saveTask(mine(), task(id));
      const stored = { ...task(id), agentId: agent.id, callerRef: CALLER, createdAt: NOW, updatedAt: NOW };
      expect(await service.task(mine(), id)).to.deep.equal(stored);
      const other = await insertAgent(ws);
      expect(await service.task({ agentId: other.id, callerRef: CALLER }, id)).to.equal(null);
      expect(await service.task({ agentId: agent.id, callerRef: 'agentKey:key_other' }, id)).to.equal(null);
      expect(await service.task(mine(), `${id}-unknown`)).to.equal(null);

      clock.advance(5_000);
      const later = `task-${newId('t')}`;
      await service.saveTask(mine(), task(later, 'TASK_STATE_COMPLETED'));
      expect(await service.tasks(mine(), { contextId: 'ctx-t', limit: 10, offset: 0 })).to.deep.equal({
        tasks: [
          {
            ...task(later, 'TASK_STATE_COMPLETED'),
            agentId: agent.id,
            callerRef: CALLER,
            createdAt: clock.now(),
            updatedAt: clock.now(),
          },
          stored,
        ],
        total: 2,
      });
      expect(
        await service.tasks(
          { agentId: agent.id, callerRef: 'agentKey:key_other' },
          { contextId: 'ctx-t', limit: 10, offset: 0 },
        ),
      ).to.deep.equal({ tasks: [], total: 0 });
      // Another key's save of the same task id changes nothing.
      await service.saveTask({ agentId: agent.id, callerRef: 'agentKey:key_other' }, task(id, 'TASK_STATE_CANCELED'));
      expect((await service.task(mine(), id))!.state).to.equal('TASK_STATE_WORKING');
    });

    it('reads a task id of 200 characters, never one of 201 or one holding U+0000', async () => {
      const { service, rec } = build();
      const at = `task-${'c'.repeat(195)}`;
      await service.saveTask(mine(), task(at));
      expect((await service.task(mine(), at))!.id).to.equal(at);
      expect(await service.task(mine(), `${at}c`)).to.equal(null);
      expect(await service.task(mine(), 'task-\u0000')).to.equal(null);
      expect(rec.argsOf('a2aTasks.get')).to.deep.equal([[at]]);
    });

    it('a task stored before callers were kept is read by no caller', async () => {
      const id = `task-${newId('t')}`;
      await h()
        .db('a2a_tasks')
        .insert({
          id,
          agent_id: agent.id,
          context_id: 'ctx-old',
          state: 'TASK_STATE_COMPLETED',
          task: JSON.stringify({ id }),
        });
      const { service } = build();
      expect(await service.task(mine(), id)).to.equal(null);
      expect((await service.tasks(mine(), { contextId: 'ctx-old', limit: 10, offset: 0 })).total).to.equal(0);
    });
  });

  it('answers structured output only for a successful run of a skill whose tool declares an output schema', () => {
    const { service } = build();
    expect(service.structuredOutput(lookup, runResult('{"temp":21}'))).to.deep.equal({ temp: 21 });
    expect(service.structuredOutput(lookup, runResult({ temp: 3 }))).to.deep.equal({ temp: 3 });
    expect(service.structuredOutput(undefined, runResult('{"temp":21}'))).to.equal(undefined);
    expect(service.structuredOutput(shout, runResult('{"temp":21}'))).to.equal(undefined);
    expect(service.structuredOutput(lookup, runResult(null, { kind: 'script', message: 'failed' }))).to.equal(
      undefined,
    );
    expect(service.structuredOutput(lookup, runResult('{"temp":"warm"}'))).to.equal(undefined);
  });
});
