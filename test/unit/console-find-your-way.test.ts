import { expect } from 'chai';
import { AGENT_TABS, groupedTabs, TAB_GROUPS, TAB_LABELS } from '../../src/console/agent-tabs.js';
import { clockTime, isoOfUtcInput, when } from '../../src/console/format.js';
import { environmentLine } from '../../src/console/pages/workspace/model-words.js';

// Finding one's way in the console: every agent tab is in one group (none hidden, none twice), the
// Monitor group holds Activity, and every time shown is UTC and says so.

describe('console: agent tab groups', () => {
  it('every tab is in exactly one group, in the order of AGENT_TABS within a group', () => {
    const shown = groupedTabs().flatMap((g) => g.tabs);
    expect([...shown].sort()).to.deep.equal([...AGENT_TABS].sort());
    expect(new Set(shown).size).to.equal(shown.length);
    for (const g of groupedTabs()) {
      const order = g.tabs.map((t) => AGENT_TABS.indexOf(t));
      expect(order, g.label).to.deep.equal([...order].sort((a, b) => a - b));
    }
  });

  it('the groups are Build, Access and Monitor; Activity and Usage are in Monitor, keys and limits in Access', () => {
    expect(TAB_GROUPS.map((g) => g.label)).to.deep.equal(['Build', 'Access', 'Monitor']);
    expect(groupedTabs().find((g) => g.label === 'Monitor')!.tabs).to.deep.equal(['activity', 'usage']);
    expect(groupedTabs().find((g) => g.label === 'Access')!.tabs).to.deep.equal(['keys', 'limits']);
  });

  it('every tab has a label, and no two share one', () => {
    const labels = AGENT_TABS.map((t) => TAB_LABELS[t]);
    expect(labels.every(Boolean)).to.equal(true);
    expect(new Set(labels).size).to.equal(labels.length);
  });
});

describe('console: times are UTC and say so', () => {
  it('a date-time is written in UTC with its zone named', () => {
    const text = when('2026-11-29T23:30:00.000Z');
    expect(text).to.match(/ UTC$/);
    expect(text)
      .to.match(/29/)
      .and.match(/11:30|23:30/);
    expect(when(null)).to.equal('—');
    expect(when(undefined, 'Never')).to.equal('Never');
    expect(when('not a date')).to.equal('not a date');
  });

  it('a time of day is UTC with its zone named', () => {
    expect(clockTime('2026-11-29T07:05:09.000Z')).to.match(/^0?7:05:09( AM)? UTC$/);
  });

  it('a date-time input is read as UTC', () => {
    expect(isoOfUtcInput('2026-12-01T10:30')).to.equal('2026-12-01T10:30:00.000Z');
    expect(isoOfUtcInput('2026-12-01T10:30:15')).to.equal('2026-12-01T10:30:15.000Z');
    expect(isoOfUtcInput('')).to.equal(null);
    expect(isoOfUtcInput('tomorrow')).to.equal(null);
  });
});

describe("console: the environment's model provider as one line", () => {
  it('names the provider, its server, the model and the variable', () => {
    expect(
      environmentLine({
        provider: 'OPENAI_COMPATIBLE',
        baseUrl: 'http://localhost:11434/v1',
        model: 'llama3.2',
        source: 'OPENAI_BASE_URL',
      }),
    ).to.equal('OpenAI-compatible at http://localhost:11434/v1 · llama3.2, from OPENAI_BASE_URL');
    expect(
      environmentLine({ provider: 'OPENAI', baseUrl: null, model: 'gpt-4o-mini', source: 'OPENAI_API_KEY' }),
    ).to.equal('OpenAI · gpt-4o-mini, from OPENAI_API_KEY');
  });
});
