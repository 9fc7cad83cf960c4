import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { agentCard, agentCardJson } from '../../src/surfaces/a2a/agent-card.js';

// The served card is a 1.0 card that a 0.3 client reads too (docs/decisions.md, "Interop with
// strict clients"); the e2e tests drive it with both SDK generations.

const agent = { id: 'agt_1', name: 'Shop', description: '', updatedAt: new Date(0) } as Agent;

describe('A2A agent card as served', () => {
  it('adds the 0.3 top-level fields naming the JSON-RPC URL, and keeps the lists a 0.3 client requires', () => {
    const card = agentCardJson(agentCard(agent, [], 'https://agents.example.com/'));
    const url = 'https://agents.example.com/agents/agt_1/a2a';
    expect(card).to.deep.include({
      url,
      protocolVersion: '0.3',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url, transport: 'JSONRPC' }],
      skills: [],
    });
    expect((card.supportedInterfaces as { protocolVersion: string }[]).map((i) => i.protocolVersion)).to.deep.equal([
      '1.0',
      '1.0',
      '0.3',
    ]);
  });

  it('tags every skill (an empty list would be left out of the JSON)', () => {
    const skills = [
      { id: 'chat', name: 'Shop', description: 'Chat with Shop', structured: false },
      { id: 'lookup', name: 'lookup', description: '', structured: false },
      { id: 'add', name: 'add', description: 'Adds', structured: true },
    ];
    const card = agentCardJson(agentCard(agent, skills, 'https://agents.example.com'));
    expect((card.skills as { tags: string[] }[]).map((s) => s.tags)).to.deep.equal([
      ['chat'],
      ['tool'],
      ['tool', 'structured'],
    ]);
  });
});
