import { expect } from 'chai';
import {
  chatDescription,
  conversationIdOf,
  DEFAULT_TASK_RETENTION_DAYS,
} from '../../src/domain/surfaces/a2a.service.js';
import { ConfigError, loadConfig } from '../../src/infra/config.js';
import { callerRefOf } from '../../src/domain/surfaces/caller-ref.js';

// An A2A context id names a conversation of one agent and one caller only, whatever id the caller chose.

describe('A2A: the conversation of a context id', () => {
  it('is the same for the same agent, caller and context, and another for any other agent, caller or context', () => {
    const id = conversationIdOf('agt_1', 'agentKey:key_1', 'ctx-1');
    expect(id).to.equal(conversationIdOf('agt_1', 'agentKey:key_1', 'ctx-1'));
    expect(id).to.match(/^a2a_[A-Za-z0-9_-]{32}$/);
    expect(conversationIdOf('agt_2', 'agentKey:key_1', 'ctx-1')).to.not.equal(id);
    expect(conversationIdOf('agt_1', 'agentKey:key_2', 'ctx-1')).to.not.equal(id);
    expect(conversationIdOf('agt_1', 'agentKey:key_1', 'ctx-2')).to.not.equal(id);
    // The separators keep (agent, caller, context) triples apart that concatenate alike.
    expect(conversationIdOf('agt_1c', 'agentKey:key_1', 'tx-1')).to.not.equal(
      conversationIdOf('agt_1', 'agentKey:key_1', 'ctx-1'),
    );
    expect(conversationIdOf('agt_1', 'agentKey:key_1c', 'tx-1')).to.not.equal(id);
  });

  it('of a task stored before callers were kept is the one it had then (agent and context only)', () => {
    expect(conversationIdOf('agt_1', null, 'ctx-1')).to.equal('a2a_5kHGrWzxiVMStLXDa5lNg37Mz5ygI3M2');
    expect(conversationIdOf('agt_1', null, 'ctx-1')).to.not.equal(conversationIdOf('agt_1', '', 'ctx-1'));
  });
});

describe('A2A and OpenAI: the caller a task or response belongs to', () => {
  it('names each kind of principal apart, by its key, grant or member', () => {
    const refs = [
      callerRefOf({ kind: 'agentKey', keyId: 'k1', workspaceId: 'w', agentId: 'a' }),
      callerRefOf({ kind: 'workspaceKey', keyId: 'k1', workspaceId: 'w', scopes: [] }),
      callerRefOf({ kind: 'oauthGrant', grantId: 'k1', clientId: 'c', memberId: 'm', workspaceId: 'w', agentId: 'a' }),
      callerRefOf({ kind: 'member', memberId: 'k1', workspaceId: 'w', role: 'ADMIN' }),
      callerRefOf({ kind: 'agentSelf', workspaceId: 'w', agentId: 'k1' }),
      callerRefOf({ kind: 'system', name: 'webhook-delivery', workspaceId: 'w', agentId: 'k1' }),
    ];
    expect(refs).to.deep.equal([
      'agentKey:k1',
      'workspaceKey:k1',
      'oauthGrant:k1',
      'member:k1',
      'agentSelf:k1',
      'system:webhook-delivery:k1',
    ]);
    expect(callerRefOf({ kind: 'agentKey', keyId: 'k2', workspaceId: 'w', agentId: 'a' })).to.not.equal(refs[0]);
  });
});

describe('A2A: the chat skill on the public card', () => {
  it('is described by the agent’s description, or by its name — never by its instructions', () => {
    expect(chatDescription({ name: 'Shop', description: 'Sells things' })).to.equal('Sells things');
    expect(chatDescription({ name: 'Shop', description: '' })).to.equal('Chat with Shop');
  });
});

describe('A2A: the retention of final tasks', () => {
  it('A2A_TASK_RETENTION_DAYS is 30 unless set, 1 to 3650, and refused otherwise naming the variable', () => {
    expect(loadConfig({}).a2aTaskRetentionDays).to.equal(DEFAULT_TASK_RETENTION_DAYS);
    expect(DEFAULT_TASK_RETENTION_DAYS).to.equal(30);
    expect(loadConfig({ A2A_TASK_RETENTION_DAYS: '1' }).a2aTaskRetentionDays).to.equal(1);
    expect(loadConfig({ A2A_TASK_RETENTION_DAYS: '3650' }).a2aTaskRetentionDays).to.equal(3650);
    for (const bad of ['0', '-1', '3651', 'month', '1.5']) {
      expect(() => loadConfig({ A2A_TASK_RETENTION_DAYS: bad }), bad).to.throw(ConfigError, /A2A_TASK_RETENTION_DAYS/);
    }
  });
});
