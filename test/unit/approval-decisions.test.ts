import { expect } from 'chai';
import { assertMayDecide, isExpired, policyInput, reasonOf } from '../../src/domain/approvals/approval-rules.js';
import { DomainError } from '../../src/domain/errors.js';
import type { ToolDefinition } from '../../src/domain/models/language-model.ports.js';
import { approvalCall, gatedTools } from '../../src/domain/runtime/run-pause.js';
import { resumedMessages } from '../../src/domain/runtime/run-resume.js';
import type { RunResume } from '../../src/domain/runtime/approval-gate.ports.js';

// The decisions of approvals (issue 54) without a database: which tools pause a run, the
// conversation a continuation resumes with, who may decide, expiry and a policy's bounds.

const sent: Record<string, unknown>[] = [];
const tools: ToolDefinition[] = [
  {
    name: 'send_email',
    description: 'Sends',
    inputSchema: { type: 'object' },
    execute: async (args) => {
      sent.push(args);
      return { queued: 'msg_1' };
    },
  },
  { name: 'list_documents', description: 'Lists', inputSchema: { type: 'object' }, execute: async () => [] },
];
const call = { id: 'c1', name: 'send_email', arguments: '{"to":"a@example.com"}' };
const base = (decision: RunResume['decision']): RunResume => ({
  system: '',
  call,
  decision,
  messages: [
    { role: 'user', content: 'report' },
    { role: 'assistant', content: '', toolCalls: [call, { id: 'c2', name: 'send_email', arguments: '{}' }] },
  ],
});
const toolTurns = (m: Awaited<ReturnType<typeof resumedMessages>>) =>
  m.flatMap((x) => (x.role === 'tool' ? [[x.toolCallId, JSON.parse(x.content)]] : []));

describe('approvals: pausing and resuming a run', () => {
  it('a gated tool is offered without execute; the others keep theirs; no policy changes nothing', () => {
    const g = gatedTools(tools, new Set(['send_email']));
    expect(g.map((t) => [t.name, typeof t.execute])).to.deep.equal([
      ['send_email', 'undefined'],
      ['list_documents', 'function'],
    ]);
    expect(gatedTools(tools, null)).to.equal(tools);
    expect(gatedTools(tools, new Set())).to.equal(tools);
  });

  it('the run pauses at the first gated call of the last turn, not at a caller’s own tool', () => {
    const calls = [{ id: 'x', name: 'client_tool', arguments: '{}' }, call];
    expect(approvalCall(calls, new Set(['send_email']))).to.equal(call);
    expect(approvalCall(calls, new Set(['send_sms']))).to.equal(null);
    expect(approvalCall(calls, null)).to.equal(null);
  });

  it('approve runs the stored call once and appends its result; another call of the turn is told to ask again', async () => {
    sent.length = 0;
    const m = await resumedMessages(base({ approved: true }), tools);
    expect(sent).to.deep.equal([{ to: 'a@example.com' }]);
    expect(toolTurns(m)).to.deep.equal([
      ['c1', { queued: 'msg_1' }],
      ['c2', { error: 'Not run: another call of this turn waited for approval; call it again' }],
    ]);
  });

  it('deny and expiry run nothing and tell the model why; a tool gone since is reported, not run', async () => {
    sent.length = 0;
    const denied = await resumedMessages(base({ approved: false, reason: 'No', expired: false }), tools);
    expect(toolTurns(denied)[0]).to.deep.equal([
      'c1',
      { error: 'A person refused this call; it was not run', reason: 'No' },
    ]);
    const expired = await resumedMessages(base({ approved: false, reason: null, expired: true }), tools);
    expect(toolTurns(expired)[0]![1]).to.deep.equal({ error: 'Nobody approved this call in time; it was not run' });
    expect(sent).to.have.length(0);
    const gone = await resumedMessages(base({ approved: true }), []);
    expect(toolTurns(gone)[0]![1].error).to.match(/no longer available/);
  });

  it('who may decide: admins always, members when the role is MEMBER, viewers never', () => {
    expect(() => assertMayDecide('ADMIN', 'ADMIN')).to.not.throw();
    expect(() => assertMayDecide('MEMBER', 'MEMBER')).to.not.throw();
    expect(() => assertMayDecide('MEMBER', 'ADMIN'))
      .to.throw(DomainError)
      .with.property('code', 'FORBIDDEN');
    expect(() => assertMayDecide('VIEWER', 'MEMBER'))
      .to.throw(DomainError)
      .with.property('code', 'FORBIDDEN');
  });

  it('expiry: only a pending approval at or past its time', () => {
    const at = new Date('2027-01-01T00:00:00Z');
    expect(isExpired({ state: 'PENDING', expiresAt: at }, at)).to.equal(true);
    expect(isExpired({ state: 'PENDING', expiresAt: at }, new Date(at.getTime() - 1))).to.equal(false);
    expect(isExpired({ state: 'APPROVED', expiresAt: at }, new Date(at.getTime() + 1))).to.equal(false);
  });

  it('a policy: known tools only, default ADMIN and 24 h, bounded expiry; a reason is bounded', () => {
    expect(policyInput({ tools: ['send_email', 'send_email'] }, ['send_email'])).to.deep.equal({
      tools: ['send_email'],
      approverRole: 'ADMIN',
      expirySeconds: 86400,
    });
    expect(() => policyInput({ tools: ['rm_rf'] }, ['send_email'])).to.throw(/unknown tool/);
    expect(() => policyInput({ tools: [], approverRole: 'VIEWER' }, [])).to.throw(/ADMIN or MEMBER/);
    expect(() => policyInput({ tools: [], expirySeconds: 10 }, [])).to.throw(/seconds/);
    expect(reasonOf('  ')).to.equal(null);
    expect(() => reasonOf('x'.repeat(1001))).to.throw(/1000/);
  });
});
