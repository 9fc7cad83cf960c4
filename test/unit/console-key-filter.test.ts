import { expect } from 'chai';
import { filterKeys, inWords, PEOPLE_FIRST, type FilterableKey } from '../../src/console/key-filter.js';

// Issue 51, item 4: the console's key lists show the keys people made first; the keys Try it and
// the CLI made for themselves, and revoked keys, each wait behind a switch that says how many.

const key = (name: string, origin: FilterableKey['origin'], revoked = false) => ({
  name,
  origin,
  revokedAt: revoked ? '2027-01-01T00:00:00.000Z' : null,
});
const KEYS = [
  key('website', 'PERSON'),
  key('old website', 'PERSON', true),
  key('Console Try it — Ada', 'TRY_IT'),
  key('Console Try it — Ada (earlier)', 'TRY_IT', true),
  key('aes cli — laptop', 'CLI', true),
];
const names = (r: { shown: { name: string }[] }) => r.shown.map((k) => k.name);

describe('console key lists: people first', () => {
  it('shows only the live keys people made by default, counting what each switch would add', () => {
    const r = filterKeys(KEYS, PEOPLE_FIRST);
    expect(names(r)).to.deep.equal(['website']);
    expect(r.hiddenTools).to.equal(1);
    expect(r.hiddenRevoked).to.equal(1);
  });

  it('the tools switch adds the live keys of Try it and the CLI; the revoked switch then counts theirs too', () => {
    const r = filterKeys(KEYS, { tools: true, revoked: false });
    expect(names(r)).to.deep.equal(['website', 'Console Try it — Ada']);
    expect(r.hiddenTools).to.equal(0);
    expect(r.hiddenRevoked).to.equal(3);
  });

  it('the revoked switch alone adds the revoked keys of people', () => {
    const r = filterKeys(KEYS, { tools: false, revoked: true });
    expect(names(r)).to.deep.equal(['website', 'old website']);
    expect(r.hiddenTools).to.equal(3);
    expect(r.hiddenRevoked).to.equal(0);
  });

  it('both switches show every key', () => {
    expect(names(filterKeys(KEYS, { tools: true, revoked: true }))).to.deep.equal(KEYS.map((k) => k.name));
  });

  it('lists in words', () => {
    expect(inWords([])).to.equal('');
    expect(inWords(['HTTP API'])).to.equal('HTTP API');
    expect(inWords(['HTTP API', 'MCP server', 'A2A server'])).to.equal('HTTP API, MCP server and A2A server');
  });
});
