import { expect } from 'chai';
import { conversationIdOf } from '../../src/domain/surfaces/a2a.service.js';

// An A2A context id names a conversation of one agent only, whatever id the caller chose.

describe('A2A: the conversation of a context id', () => {
  it('is the same for the same agent and context, and another for any other agent or context', () => {
    const id = conversationIdOf('agt_1', 'ctx-1');
    expect(id).to.equal(conversationIdOf('agt_1', 'ctx-1'));
    expect(id).to.match(/^a2a_[A-Za-z0-9_-]{32}$/);
    expect(conversationIdOf('agt_2', 'ctx-1')).to.not.equal(id);
    expect(conversationIdOf('agt_1', 'ctx-2')).to.not.equal(id);
    // The separator keeps (agent, context) pairs apart that concatenate alike.
    expect(conversationIdOf('agt_1c', 'tx-1')).to.not.equal(conversationIdOf('agt_1', 'ctx-1'));
  });
});
