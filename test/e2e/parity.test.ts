import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHash } from 'node:crypto';
import nodemailer from 'nodemailer';
import twilio from 'twilio';
import { createAgent, gql, gqlOk, h, HARNESS_TWILIO, type TestWorkspace } from '../helpers/harness.js';
import { nodemailerDkim } from '../helpers/mail-auth.js';
import { until } from '../helpers/until.js';
import type { FakeOpenAi } from '../helpers/openai-server.js';
import { useFakeModelWorkspace } from '../helpers/runtime.js';
import { addHttpEndpoint, call, createAgentKey, httpApiPath } from '../helpers/surface-calls.js';
import { addDoubleSchedule, nextFire, scheduleNames } from '../helpers/schedule-fires.js';

// Parity (STYLE.md, "Tests"): one scenario — create an entry, call it, be refused for bad input,
// hit the limit — through every transport that offers a step gives the same outcome and the same
// error code for the same mistake. Each transport's answer is read back into one shape with the
// mapping DESIGN §6/§7 documents for it (HTTP 400 / GraphQL BAD_USER_INPUT / an MCP tool error /
// an Endpoint Management tool's `code` → INVALID; HTTP 429 + reason → LIMIT_EXCEEDED).
//
// The table below is transports × steps. A surface joins by adding a row: the steps it offers, each
// answering an Outcome. The channels (SMS, email) answer later, through their queue: their outcome
// is the reply they queued, or the refusal kept with the received message.

/** The entry every transport creates: it doubles `n`. */
const DOUBLE = 'return { doubled: input.n * 2 };';
/** The same mistake on every transport that creates: a script that does not parse. */
const BROKEN = 'const x = ;\nreturn x;';
const BLOCKED_PHRASE = 'forbidden word';
/** The MCP tool's arguments: what the HTTP endpoint takes as its body. */
const DOUBLE_SCHEMA = {
  type: 'object',
  properties: { n: { type: 'number' }, note: { type: 'string' } },
  required: ['n'],
};

type Code =
  | 'INVALID'
  | 'LIMIT_EXCEEDED'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'FAILED';

/** What a step came to, whatever the transport: a value, or a refusal with its code (and reason, for a limit). */
interface Outcome {
  ok?: unknown;
  refused?: Code;
  reason?: string;
  /** The refusal's client-facing message (compared across transports, not pinned). */
  message?: string;
}

/** One agent of the workspace, set up for one transport's run of the scenario. */
interface Subject {
  ws: TestWorkspace;
  fake: FakeOpenAi;
  agent: string;
  key: string;
}

type Step = 'create' | 'createInvalid' | 'call' | 'callBadInput' | 'callOverLimit';

/** The scenario's steps in order, with the outcome every transport that offers the step must give. */
/** `sameMessage`: every transport's refusal carries the domain's message (compared across transports). */
const STEPS: { step: Step; title: string; expected: Outcome; sameMessage?: boolean }[] = [
  { step: 'create', title: 'creates the entry; the agent has it', expected: { ok: ['double'] } },
  {
    step: 'createInvalid',
    title: 'a script that does not parse is refused as INVALID; nothing is saved',
    expected: { refused: 'INVALID', ok: ['double'] },
    sameMessage: true,
  },
  { step: 'call', title: 'calling it answers its output', expected: { ok: { doubled: 42 } } },
  {
    step: 'callBadInput',
    title: "input the agent's guardrails block is refused as INVALID",
    expected: { refused: 'INVALID' },
    sameMessage: true,
  },
  {
    step: 'callOverLimit',
    title: 'over the daily credit limit, the call is refused as LIMIT_EXCEEDED (daily_credit_limit)',
    expected: { refused: 'LIMIT_EXCEEDED', reason: 'daily_credit_limit' },
    sameMessage: true,
  },
];

interface Transport {
  name: string;
  /** Gets the subject ready (a capability, a management endpoint) before the first step. */
  prepare?: (s: Subject) => Promise<void>;
  /** Steps this transport offers; a missing `create` means the entry is added through GraphQL first. */
  steps: Partial<Record<Step, (s: Subject) => Promise<Outcome>>>;
}

// ---- reading each transport's answers into an Outcome ---------------------------------------------

const HTTP_CODES: Record<number, Code> = {
  400: 'INVALID',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'LIMIT_EXCEEDED',
};
const GRAPHQL_CODES: Record<string, Code> = {
  BAD_USER_INPUT: 'INVALID',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
};

/** An agent surface's HTTP answer (DESIGN §6: `{error}`, a 429 adds `reason`). */
function fromHttp(status: number, body: any): Outcome {
  if (status === 200) return { ok: body?.output };
  return {
    refused: HTTP_CODES[status] ?? 'FAILED',
    message: body?.error,
    ...(status === 429 ? { reason: body?.reason } : {}),
  };
}

/** A GraphQL answer: the first error's `extensions.code`, or `data`. */
function fromGraphql(
  r: { data: unknown; errors?: { message: string; extensions?: { code?: string } }[] },
  ok: unknown,
): Outcome {
  const e = r.errors?.[0];
  if (!e) return { ok };
  return { refused: GRAPHQL_CODES[e.extensions?.code ?? ''] ?? 'FAILED', message: e.message };
}

/** The paths of the agent's HTTP endpoints, but the management one of the Endpoint Management row. */
async function endpointsOf(s: Subject): Promise<string[]> {
  const d = await gqlOk(s.ws.adminToken, 'query($a: ID!) { agent(id: $a) { httpEndpoints { path } } }', { a: s.agent });
  return (d.agent.httpEndpoints as { path: string }[]).map((e) => e.path).filter((p) => p !== 'manage');
}

async function mcpToolsOf(s: Subject): Promise<string[]> {
  const d = await gqlOk(s.ws.adminToken, 'query($a: ID!) { agent(id: $a) { mcpTools { name } } }', { a: s.agent });
  return (d.agent.mcpTools as { name: string }[]).map((t) => t.name);
}

const ADD_ENDPOINT = 'mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }';
const ADD_TOOL = 'mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }';

async function graphqlCreate(s: Subject, script: string): Promise<Outcome> {
  const r = await gql(s.ws.adminToken, ADD_ENDPOINT, { a: s.agent, i: { path: 'double', handler: { script } } });
  return fromGraphql(r, await endpointsOf(s));
}

/** An MCP session through the SDK client; `last` is the HTTP answer to the latest JSON-RPC POST (a refusal before JSON-RPC is an HTTP status). */
async function mcpSession<T>(
  s: Subject,
  use: (client: Client, last: () => { status: number; body: any }) => Promise<T>,
): Promise<T> {
  let last = { status: 0, body: undefined as any };
  const recording: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if ((init?.method ?? 'GET').toUpperCase() === 'POST' && !res.ok)
      last = {
        status: res.status,
        body: await res
          .clone()
          .json()
          .catch(() => undefined),
      };
    else if ((init?.method ?? 'GET').toUpperCase() === 'POST') last = { status: res.status, body: undefined };
    return res;
  };
  const client = new Client({ name: 'parity', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h().url}/agents/${s.agent}/mcp`), {
      requestInit: { headers: { 'x-agent-access-key': s.key } },
      fetch: recording,
    }),
  );
  try {
    return await use(client, () => last);
  } finally {
    await client.close();
  }
}

/** tools/call through the SDK: a result, a tool error (DESIGN §6: refused input is an MCP tool error), or an HTTP refusal. */
async function mcpCall(s: Subject, args: Record<string, unknown>): Promise<Outcome> {
  return mcpSession(s, async (client, last) => {
    let r: any;
    try {
      r = await client.callTool({ name: 'double', arguments: args });
    } catch (err) {
      const { status, body } = last();
      if (status >= 400) return fromHttp(status, body);
      throw err;
    }
    const text = r.content?.[0]?.text as string;
    if (r.isError) return { refused: 'INVALID', message: text };
    return { ok: JSON.parse(text) };
  });
}

/** What the agent's own Endpoint Management tool answered its model: the tool result of the run's second model request. */
function toolResultOf(fake: FakeOpenAi): any {
  const message = fake.requests.at(-1)?.body.messages?.find((m) => m.role === 'tool');
  const content = message?.content;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((p: any) => p.text ?? '').join('')
        : JSON.stringify(content);
  return JSON.parse(text);
}

/** Has the agent's model call `add_http_endpoint`, through a run of its management endpoint. */
async function managementCreate(s: Subject, script: string): Promise<Outcome> {
  s.fake.enqueue(
    { toolCalls: [{ name: 'add_http_endpoint', arguments: { input: { path: 'double', handler: { script } } } }] },
    { text: 'Done.' },
  );
  const r = await call('POST', httpApiPath(s.agent, 'manage'), {
    key: s.key,
    json: { task: 'add an endpoint that doubles n' },
  });
  if (r.status !== 200) return fromHttp(r.status, r.json);
  const result = toolResultOf(s.fake);
  const entries = await endpointsOf(s);
  if (result && typeof result === 'object' && typeof result.code === 'string')
    return { refused: result.code as Code, message: result.error, ok: entries };
  return { ok: entries };
}

const setSurface = (s: Subject, surface: string) =>
  gqlOk(s.ws.adminToken, `mutation($a: ID!) { setSurface(agentId: $a, surface: ${surface}, enabled: true) { id } }`, {
    a: s.agent,
  });

/** A2A `SendMessage` (JSON-RPC 1.0) naming the `double` skill: a completed task's answer, or the JSON-RPC error read into a code. */
async function a2aCall(s: Subject, data: Record<string, unknown>): Promise<Outcome> {
  const res = await fetch(`${h().url}/agents/${s.agent}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${s.key}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: {
          messageId: `m-${Date.now()}`,
          role: 'ROLE_USER',
          parts: [{ data }],
          metadata: { skillId: 'double' },
        },
      },
    }),
  });
  if (res.status !== 200) return fromHttp(res.status, await res.json());
  const body = (await res.json()) as any;
  if (body.error)
    return {
      refused: body.error.code === -32000 ? 'LIMIT_EXCEEDED' : body.error.code === -32602 ? 'INVALID' : 'FAILED',
      message: body.error.message,
      ...(body.error.code === -32000 ? { reason: body.error.data?.[0]?.reason } : {}),
    };
  const text = body.result.task.artifacts.at(-1).parts.find((p: any) => typeof p.text === 'string').text as string;
  return { ok: JSON.parse(text) };
}

/** An OpenAI-compatible chat completion: the agent itself answers, so only its refusals are compared. */
async function openAiCall(s: Subject, text: string): Promise<Outcome> {
  const res = await fetch(`${h().url}/agents/${s.agent}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}` },
    body: JSON.stringify({ model: s.agent, messages: [{ role: 'user', content: text }] }),
  });
  const body = (await res.json()) as any;
  if (res.status === 200) return { ok: body.choices[0].message.content };
  return {
    refused: HTTP_CODES[res.status] ?? 'FAILED',
    message: body.error?.message,
    ...(res.status === 429 ? { reason: body.error?.code } : {}),
  };
}

/** A channel's handler of the same entry: a message's text is the `n` to double. */
const DOUBLE_TEXT = 'return { doubled: Number(input.text.split(" ")[0]) * 2 };';

/**
 * How a channel answered one stored inbound message, read as a surface's answer: the reply it
 * queued (its text, JSON), or the refusal kept with the message (`provider.refusal`: the domain's
 * code and a limit's reason; `last_error`: the domain's message). A limit defers rather than refuses.
 */
async function channelOutcome(agentId: string, messageId: string): Promise<Outcome> {
  const m = await until('the channel to settle the message', async () => {
    const row = await h()
      .db('messages')
      .where({ agent_id: agentId, direction: 'inbound', message_id: messageId })
      .first();
    return row && ['answered', 'failed', 'deferred'].includes(row.status) ? row : undefined;
  });
  if (m.status === 'answered') {
    const reply = await h()
      .db('messages')
      .where({ agent_id: agentId, direction: 'outbound', run_id: m.run_id })
      .first();
    return { ok: JSON.parse(reply.body) };
  }
  const refusal = m.provider?.refusal ?? {};
  return {
    refused: (refusal.code as Code) ?? 'FAILED',
    message: m.last_error,
    ...(refusal.reason ? { reason: refusal.reason } : {}),
  };
}

let channelMessages = 0;

/** A text to the agent's SMS number, signed as Twilio signs it, answered with empty TwiML; then how the channel answered it. */
async function smsCall(s: Subject, text: string): Promise<Outcome> {
  const path = `/agents/${s.agent}/sms`;
  const sid = `SMparity${++channelMessages}`;
  const params = {
    MessageSid: sid,
    AccountSid: HARNESS_TWILIO.accountSid,
    From: '+14155550199',
    To: parityNumber(s),
    Body: text,
  };
  const signature = twilio.getExpectedTwilioSignature(HARNESS_TWILIO.authToken, `${h().config.baseUrl}${path}`, params);
  const res = await fetch(`${h().url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    body: new URLSearchParams(params),
  });
  if (res.status !== 200) return fromHttp(res.status, await res.json());
  return channelOutcome(s.agent, sid);
}

/** An email to the agent's address over SMTP (250 once stored); then how the channel answered it. */
async function emailCall(s: Subject, text: string): Promise<Outcome> {
  const messageId = `<parity-${++channelMessages}@customer.example>`;
  // Signed as customer.example, whose key the harness's DNS serves: only authenticated senders are answered.
  const client = nodemailer.createTransport({
    host: '127.0.0.1',
    port: h().smtpPort,
    secure: false,
    ignoreTLS: true,
    dkim: nodemailerDkim(h().customerDkim),
  });
  try {
    await client.sendMail({ from: 'ada@customer.example', to: parityAddress(s), subject: 'Parity', text, messageId });
  } finally {
    client.close();
  }
  return channelOutcome(s.agent, messageId);
}

/** The SMS number of the subject's channel: its own (numbers are unique across the service, and the suite shares one database). */
const parityNumber = (s: Subject) =>
  `+1555${String(parseInt(createHash('sha256').update(s.agent).digest('hex').slice(0, 8), 16) % 10_000_000).padStart(7, '0')}`;
const parityAddress = (s: Subject) => `parity-${s.agent.toLowerCase().replace(/[^a-z0-9]/g, '')}@harness.example.test`;
const ADD_CHANNEL = 'mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { id } }';

// ---- the table: transports × steps ----------------------------------------------------------------

const TRANSPORTS: Transport[] = [
  {
    name: 'GraphQL (management)',
    steps: {
      create: (s) => graphqlCreate(s, DOUBLE),
      createInvalid: async (s) => ({ ...(await graphqlCreate(s, BROKEN)), ok: await endpointsOf(s) }),
    },
  },
  {
    name: "REST (the agent's HTTP API)",
    steps: {
      call: async (s) => {
        const r = await call('POST', httpApiPath(s.agent, 'double'), { key: s.key, json: { n: 21 } });
        return fromHttp(r.status, r.json);
      },
      callBadInput: async (s) => {
        const r = await call('POST', httpApiPath(s.agent, 'double'), {
          key: s.key,
          json: { n: 21, note: BLOCKED_PHRASE },
        });
        return fromHttp(r.status, r.json);
      },
      callOverLimit: async (s) => {
        const r = await call('POST', httpApiPath(s.agent, 'double'), { key: s.key, json: { n: 21 } });
        return fromHttp(r.status, r.json);
      },
    },
  },
  {
    name: 'MCP (SDK client)',
    steps: {
      create: async (s) => {
        const r = await gql(s.ws.adminToken, ADD_TOOL, {
          a: s.agent,
          i: { name: 'double', description: 'Doubles n', handler: { script: DOUBLE }, inputSchema: DOUBLE_SCHEMA },
        });
        const listed = await mcpSession(s, async (client) => (await client.listTools()).tools.map((t) => t.name));
        expect(listed, 'tools/list').to.deep.equal(await mcpToolsOf(s));
        return fromGraphql(r, listed);
      },
      createInvalid: async (s) => {
        const r = await gql(s.ws.adminToken, ADD_TOOL, {
          a: s.agent,
          i: { name: 'double_too', description: 'Broken', handler: { script: BROKEN } },
        });
        return { ...fromGraphql(r, null), ok: await mcpToolsOf(s) };
      },
      call: (s) => mcpCall(s, { n: 21 }),
      callBadInput: (s) => mcpCall(s, { n: 21, note: BLOCKED_PHRASE }),
      callOverLimit: (s) => mcpCall(s, { n: 21 }),
    },
  },
  {
    name: 'A2A (JSON-RPC, the MCP tool as a skill)',
    prepare: async (s) => {
      await setSurface(s, 'A2A');
      await gqlOk(s.ws.adminToken, ADD_TOOL, {
        a: s.agent,
        i: { name: 'double', description: 'Doubles n', handler: { script: DOUBLE }, inputSchema: DOUBLE_SCHEMA },
      });
    },
    steps: {
      call: (s) => a2aCall(s, { n: 21 }),
      callBadInput: (s) => a2aCall(s, { n: 21, note: BLOCKED_PHRASE }),
      callOverLimit: (s) => a2aCall(s, { n: 21 }),
    },
  },
  {
    name: 'OpenAI-compatible API (chat completions)',
    prepare: (s) => setSurface(s, 'OPENAI').then(() => undefined),
    steps: {
      callBadInput: (s) => openAiCall(s, `please use the ${BLOCKED_PHRASE}`),
      callOverLimit: (s) => openAiCall(s, 'hello'),
    },
  },
  {
    name: 'SMS (a Twilio-signed text, answered through the channel queue)',
    prepare: async (s) => {
      await setSurface(s, 'SMS');
      await gqlOk(s.ws.adminToken, ADD_CHANNEL, {
        a: s.agent,
        i: { kind: 'SMS', address: parityNumber(s), handler: { script: DOUBLE_TEXT } },
      });
    },
    steps: {
      call: (s) => smsCall(s, '21'),
      callBadInput: (s) => smsCall(s, `21 ${BLOCKED_PHRASE}`),
      callOverLimit: (s) => smsCall(s, '21'),
    },
  },
  {
    name: 'email (SMTP to the listener, answered through the channel queue)',
    prepare: async (s) => {
      await setSurface(s, 'EMAIL');
      await gqlOk(s.ws.adminToken, ADD_CHANNEL, {
        a: s.agent,
        i: { kind: 'EMAIL', address: parityAddress(s), handler: { script: DOUBLE_TEXT } },
      });
    },
    steps: {
      call: (s) => emailCall(s, '21'),
      callBadInput: (s) => emailCall(s, `21 ${BLOCKED_PHRASE}`),
      callOverLimit: (s) => emailCall(s, '21'),
    },
  },
  {
    name: 'SCHEDULE (a schedule firing every second; each step reads its next fire)',
    prepare: (s) => setSurface(s, 'SCHEDULE').then(() => undefined),
    steps: {
      create: async (s) =>
        fromGraphql(
          await addDoubleSchedule(s.ws.adminToken, s.agent, 'double', DOUBLE),
          await scheduleNames(s.ws.adminToken, s.agent),
        ),
      createInvalid: async (s) => ({
        ...fromGraphql(await addDoubleSchedule(s.ws.adminToken, s.agent, 'double_too', BROKEN), null),
        ok: await scheduleNames(s.ws.adminToken, s.agent),
      }),
      call: (s) => nextFire(s.ws.adminToken, s.agent) as Promise<Outcome>,
      callBadInput: (s) =>
        nextFire(s.ws.adminToken, s.agent, { input: { n: 21, note: BLOCKED_PHRASE } }) as Promise<Outcome>,
      callOverLimit: (s) => nextFire(s.ws.adminToken, s.agent, { input: { n: 21 }, stop: true }) as Promise<Outcome>,
    },
  },
  {
    name: "the agent's own Endpoint Management tools",
    prepare: async (s) => {
      await gqlOk(
        s.ws.adminToken,
        'mutation($id: ID!) { setCapabilities(agentId: $id, input: { endpointManagement: true }) { id } }',
        { id: s.agent },
      );
      await addHttpEndpoint(s.ws.adminToken, s.agent, {
        path: 'manage',
        handler: { prompt: 'Manage your endpoints.' },
      });
    },
    steps: {
      create: (s) => managementCreate(s, DOUBLE),
      createInvalid: (s) => managementCreate(s, BROKEN),
      callOverLimit: (s) => managementCreate(s, DOUBLE),
    },
  },
];

describe('parity: one scenario through every transport', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;
  useFakeModelWorkspace((s) => ({ fake, ws } = s));

  /** Every transport's outcome of each step, for the cross-transport comparison. */
  const seen = new Map<Step, { transport: string; outcome: Outcome }[]>();

  for (const t of TRANSPORTS) {
    describe(t.name, () => {
      let s: Subject;
      before(async () => {
        const agent = await createAgent(ws.adminToken, { name: 'Parity', defaultModel: 'test-model' });
        s = { ws, fake, agent, key: await createAgentKey(ws.adminToken, agent) };
        await gqlOk(
          ws.adminToken,
          'mutation($a: ID!) { setGuardrails(agentId: $a, input: { blockedInputPatterns: ["forbidden[- ]word"] }) { id } }',
          { a: agent },
        );
        await t.prepare?.(s);
        if (!t.steps.create)
          await addHttpEndpoint(ws.adminToken, agent, { path: 'double', handler: { script: DOUBLE } });
      });

      for (const { step, title, expected } of STEPS) {
        const run = t.steps[step];
        if (!run) continue;
        it(title, async () => {
          s.fake = fake;
          if (step === 'callOverLimit')
            await gqlOk(
              ws.adminToken,
              'mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }',
              { a: s.agent },
            );
          const outcome = await run(s);
          const { message, ...compared } = outcome;
          expect(compared, JSON.stringify(outcome)).to.deep.equal(expected);
          if (expected.refused) expect(message, 'a refusal says what is wrong').to.be.a('string').and.not.equal('');
          seen.set(step, [...(seen.get(step) ?? []), { transport: t.name, outcome }]);
        });
      }
    });
  }

  describe('the same mistake gives the same answer on every transport', () => {
    for (const { step } of STEPS.filter((x) => x.sameMessage)) {
      it(`${step}: one code, and every transport carries the domain's message`, () => {
        const outcomes = seen.get(step) ?? [];
        const offering = TRANSPORTS.filter((t) => t.steps[step]).length;
        expect(outcomes.length, `transports that ran ${step}`).to.equal(offering);
        const codes = new Set(
          outcomes.map((o) => JSON.stringify({ refused: o.outcome.refused, reason: o.outcome.reason })),
        );
        expect([...codes], JSON.stringify(outcomes)).to.have.length(1);
        // A transport may add what to do next around it (MCP tool errors do), never replace it.
        const messages = outcomes.map((o) => o.outcome.message ?? '');
        const domain = messages.reduce((a, b) => (b.length < a.length ? b : a));
        for (const m of messages) expect(m, JSON.stringify(outcomes)).to.include(domain);
      });
    }
  });
});
