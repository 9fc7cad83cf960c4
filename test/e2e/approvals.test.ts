import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { expect } from 'chai';
import { createAgent, errorCode, gql, gqlOk, h, type TestWorkspace } from '../helpers/harness.js';
import type { FakeOpenAi } from '../helpers/openai-server.js';
import { useFakeModelWorkspace } from '../helpers/runtime.js';
import { addHttpEndpoint, call, createAgentKey, httpApiPath } from '../helpers/surface-calls.js';
import { until } from '../helpers/until.js';
import { startReceiver } from '../helpers/event-receiver.js';

// Human approval of risky actions (issue 54): `send_email` under approval pauses a prompt run on the
// local model server; the HTTP API answers 202 with the run's URL; a decision by GraphQL continues
// the run (the email queued, or the model told a person refused); expiry denies; non-approvers are refused.

const MAIL = `a${Math.random().toString(36).slice(2, 8)}.example.net`;
const EMAIL = { to: 'boss@example.com', subject: 'Weekly report', text: 'All green.' };

describe('approvals: a send_email that waits for a person', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;
  useFakeModelWorkspace((s) => ({ fake, ws } = s));

  async function approvalAgent(approverRole = 'ADMIN'): Promise<{ id: string; key: string }> {
    const id = await createAgent(ws.adminToken, { name: 'Careful', defaultModel: 'test-model' });
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { setCapabilities(agentId: $a, input: { messaging: true }) { id } }',
      {
        a: id,
      },
    );
    await gqlOk(ws.adminToken, 'mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { id } }', {
      a: id,
      i: {
        kind: 'EMAIL',
        address: `news-${id.slice(-6)}@${MAIL}`,
        allowedSenders: ['@example.com'],
        handler: { prompt: 'Answer.' },
      },
    });
    await addHttpEndpoint(ws.adminToken, id, { path: 'assist', handler: { prompt: 'Use your tools.' } });
    const p = await gqlOk(
      ws.adminToken,
      'mutation($a: ID!, $i: ApprovalPolicyInput!) { setApprovalPolicy(agentId: $a, input: $i) { tools approverRole expirySeconds } }',
      { a: id, i: { tools: ['send_email'], approverRole } },
    );
    expect(p.setApprovalPolicy).to.deep.equal({ tools: ['send_email'], approverRole, expirySeconds: 86400 });
    return { id, key: await createAgentKey(ws.adminToken, id) };
  }

  /** Starts a run whose model calls send_email: it pauses (202). */
  async function paused(agent: { id: string; key: string }) {
    fake.enqueue({ toolCalls: [{ name: 'send_email', arguments: EMAIL }] });
    const r = await call('POST', httpApiPath(agent.id, 'assist'), { key: agent.key, json: { task: 'report' } });
    expect(r.status, r.text).to.equal(202);
    expect(r.json.state).to.equal('AWAITING_APPROVAL');
    expect(r.json.approval.toolName).to.equal('send_email');
    expect(r.json.poll).to.match(new RegExp(`/agents/${agent.id}/runs/${r.json.runId}$`));
    expect(r.headers.get('location')).to.equal(r.json.poll);
    return {
      runId: r.json.runId as string,
      approvalId: r.json.approval.id as string,
      path: new URL(r.json.poll).pathname,
    };
  }

  const poll = (agent: { key: string }, path: string) =>
    until(
      'the continued run',
      async () => {
        const r = await call('GET', path, { key: agent.key });
        return r.status === 200 ? r.json : undefined;
      },
      20_000,
    );
  const outbound = (agentId: string) => h().db('messages').where({ agent_id: agentId, direction: 'outbound' });
  const lastToolResult = () =>
    JSON.parse(
      String(
        fake.requests
          .at(-1)!
          .body.messages!.filter((m) => m.role === 'tool')
          .at(-1)!.content,
      ),
    );

  it('pauses the run (202, nothing sent); a viewer and a non-approver are refused; approve sends and the answer arrives', async () => {
    const agent = await approvalAgent('ADMIN');
    const p = await paused(agent);
    expect(await outbound(agent.id)).to.have.length(0);
    const waiting = await call('GET', p.path, { key: agent.key });
    expect(waiting.status).to.equal(202);
    expect(waiting.json).to.deep.include({ state: 'AWAITING_APPROVAL', runId: p.runId });

    const list = await gqlOk(
      ws.adminToken,
      'query($a: ID) { approvals(agentId: $a) { id state toolName arguments } }',
      {
        a: agent.id,
      },
    );
    expect(list.approvals).to.deep.equal([
      { id: p.approvalId, state: 'PENDING', toolName: 'send_email', arguments: JSON.stringify(EMAIL) },
    ]);
    for (const role of ['VIEWER', 'MEMBER'] as const) {
      const m = await ws.addMember(role);
      const r = await gql(m.token, 'mutation($id: ID!) { approveToolCall(id: $id) { state } }', { id: p.approvalId });
      expect(errorCode(r), role).to.equal('FORBIDDEN');
    }

    fake.enqueue({ text: 'I sent the report.' });
    const d = await gqlOk(ws.adminToken, 'mutation($id: ID!) { approveToolCall(id: $id) { state decidedBy } }', {
      id: p.approvalId,
    });
    expect(d.approveToolCall.state).to.equal('APPROVED');
    expect(d.approveToolCall.decidedBy).to.match(/@example\.test$/);
    const done = await poll(agent, p.path);
    expect(done).to.deep.include({ state: 'COMPLETED', runId: p.runId, output: 'I sent the report.' });
    expect(done.continuedRunId).to.not.equal(p.runId);
    const sent = await outbound(agent.id);
    expect(sent).to.have.length(1);
    expect(sent[0]).to.include({ to_address: 'boss@example.com', subject: 'Weekly report', status: 'queued' });
    expect(lastToolResult()).to.have.property('queued', sent[0].id);
    // A second decision is refused; the decision is in the activity log with who decided.
    const again = await gql(ws.adminToken, 'mutation($id: ID!) { denyToolCall(id: $id) { state } }', {
      id: p.approvalId,
    });
    expect(errorCode(again)).to.equal('CONFLICT');
    await h().service.services.activityLog.flush();
    const entry = await until(
      'the decision entry',
      async () => (await h().db('activity_log').where({ agent_id: agent.id, method: 'APPROVE' }).first()) ?? undefined,
    );
    expect(JSON.stringify(entry.request_body)).to.include(d.approveToolCall.decidedBy);
  });

  it('deny: nothing is sent and the model is told a person refused, with the reason; both steps are outbound events', async () => {
    const agent = await approvalAgent('MEMBER');
    const rx = await startReceiver();
    await gqlOk(
      ws.adminToken,
      'mutation($i: EventSubscriptionInput!) { createEventSubscription(input: $i) { secret } }',
      {
        i: { url: rx.url, kinds: ['approval.requested', 'approval.decided'] },
      },
    );
    const p = await paused(agent);
    const m = await ws.addMember('MEMBER');
    fake.enqueue({ text: 'The report was not sent: a person refused.' });
    const d = await gqlOk(
      m.token,
      'mutation($id: ID!) { denyToolCall(id: $id, reason: "Not today") { state reason } }',
      {
        id: p.approvalId,
      },
    );
    expect(d.denyToolCall).to.deep.equal({ state: 'DENIED', reason: 'Not today' });
    const done = await poll(agent, p.path);
    expect(done.output).to.equal('The report was not sent: a person refused.');
    expect(lastToolResult()).to.deep.equal({
      error: 'A person refused this call; it was not run',
      reason: 'Not today',
    });
    expect(await outbound(agent.id)).to.have.length(0);
    const events = await until('both approval events', async () => (rx.events().length >= 2 ? rx.events() : undefined));
    await rx.close();
    const byType = Object.fromEntries(events.map((e) => [e.type, e.data]));
    expect(byType['approval.requested']).to.deep.equal({
      agentId: agent.id,
      approvalId: p.approvalId,
      runId: p.runId,
      tool: 'send_email',
    });
    expect(byType['approval.decided']).to.deep.include({ approvalId: p.approvalId, decision: 'denied' });
    expect(byType['approval.decided'].decidedBy).to.be.a('string');
  });

  it('expiry denies: polling past the expiry continues the run with the refusal', async () => {
    const agent = await approvalAgent();
    const p = await paused(agent);
    await h()
      .db('approvals')
      .where({ id: p.approvalId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    fake.enqueue({ text: 'Nobody approved in time.' });
    const done = await poll(agent, p.path);
    expect(done.approval.state).to.equal('EXPIRED');
    expect(done.output).to.equal('Nobody approved in time.');
    expect(lastToolResult().error).to.equal('Nobody approved this call in time; it was not run');
    const late = await gql(ws.adminToken, 'mutation($id: ID!) { approveToolCall(id: $id) { state } }', {
      id: p.approvalId,
    });
    expect(errorCode(late)).to.equal('CONFLICT');
  });

  it('housekeeping denies an expired approval nobody reads, and its run continues', async () => {
    const agent = await approvalAgent();
    const p = await paused(agent);
    await h()
      .db('approvals')
      .where({ id: p.approvalId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    fake.enqueue({ text: 'Nobody approved.' });
    expect(await h().service.services.approvals.expireOverdue()).to.be.at.least(1);
    const row = await until('the continuation', async () => {
      const r = await h().db('approvals').where({ id: p.approvalId }).first();
      return r.result ? r : undefined;
    });
    expect(row.state).to.equal('EXPIRED');
    expect((typeof row.result === 'string' ? JSON.parse(row.result) : row.result).output).to.equal('Nobody approved.');
  });

  it('A2A: the task waits in TASK_STATE_INPUT_REQUIRED naming the approval', async () => {
    const agent = await approvalAgent();
    await gqlOk(ws.adminToken, 'mutation($a: ID!) { setSurface(agentId: $a, surface: A2A, enabled: true) { id } }', {
      a: agent.id,
    });
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({
          fetchImpl: (input, init) =>
            fetch(input, {
              ...init,
              headers: {
                ...Object.fromEntries(new Headers(init?.headers).entries()),
                authorization: `Bearer ${agent.key}`,
              },
            }),
        }),
      ],
    });
    const client = await new ClientFactory(options).createFromUrl(`${h().url}/agents/${agent.id}/`);
    fake.enqueue({ toolCalls: [{ name: 'send_email', arguments: EMAIL }] });
    const task = (await client.sendMessage({
      tenant: '',
      message: {
        messageId: randomUUID(),
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [
          { content: { $case: 'text', value: 'Send the report' }, metadata: {}, filename: '', mediaType: 'text/plain' },
        ],
        metadata: {},
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: {},
    })) as Task;
    expect(task.status?.state).to.equal(TaskState.TASK_STATE_INPUT_REQUIRED);
    const parts = task.status?.message?.parts ?? [];
    const d = parts.find((p) => p.content?.$case === 'data')?.content;
    const pending = await h().db('approvals').where({ agent_id: agent.id, state: 'PENDING' });
    expect(pending).to.have.length(1);
    expect(d?.$case === 'data' && (d.value as any).approvalId).to.equal(pending[0].id);
  });

  it('OpenAI Responses: an incomplete response naming the approval', async () => {
    const agent = await approvalAgent();
    await gqlOk(ws.adminToken, 'mutation($a: ID!) { setSurface(agentId: $a, surface: OPENAI, enabled: true) { id } }', {
      a: agent.id,
    });
    fake.enqueue({ toolCalls: [{ name: 'send_email', arguments: EMAIL }] });
    const r = await call('POST', `/agents/${agent.id}/v1/responses`, {
      key: agent.key,
      json: { model: 'agent', input: 'Send the report' },
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.status).to.equal('incomplete');
    expect(r.json.incomplete_details.reason).to.equal('approval_required');
    const pending = await h().db('approvals').where({ agent_id: agent.id, state: 'PENDING' });
    expect(r.json.incomplete_details.approval.id).to.equal(pending[0].id);
    expect(await outbound(agent.id)).to.have.length(0);
  });

  it('a policy naming a tool the agent does not have is refused', async () => {
    const id = await createAgent(ws.adminToken, { name: 'Plain', defaultModel: 'test-model' });
    const r = await gql(
      ws.adminToken,
      'mutation($a: ID!) { setApprovalPolicy(agentId: $a, input: { tools: ["send_email"] }) { tools } }',
      {
        a: id,
      },
    );
    expect(errorCode(r)).to.equal('BAD_USER_INPUT');
  });
});
