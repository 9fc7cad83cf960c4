import { expect } from 'chai';
import { ReadCache } from '../../src/infra/store/cached-store.js';

// The read cache of the hot path: a value is read from the database once and then served from
// memory until a change to its row arrives; a read that raced a change is never kept.

function counting<T>(value: () => T) {
  let loads = 0;
  return {
    load: async () => {
      loads++;
      return value();
    },
    get loads() {
      return loads;
    },
  };
}

const on = () => {
  const c = new ReadCache(100);
  c.setEnabled(true);
  return c;
};

describe('read cache', () => {
  it('serves a value from memory until a change to its row arrives', async () => {
    const cache = on();
    let name = 'first';
    const src = counting(() => ({ id: 'agt_1', name }));
    expect(await cache.get('agent:agt_1', src.load)).to.deep.equal({ id: 'agt_1', name: 'first' });
    expect(await cache.get('agent:agt_1', src.load)).to.deep.equal({ id: 'agt_1', name: 'first' });
    expect(src.loads).to.equal(1);
    name = 'second';
    cache.invalidate({ table: 'agents', id: 'agt_other' });
    expect((await cache.get('agent:agt_1', src.load)).name, 'another row changed').to.equal('first');
    cache.invalidate({ table: 'agents', id: 'agt_1' });
    expect((await cache.get('agent:agt_1', src.load)).name).to.equal('second');
    expect(src.loads).to.equal(2);
  });

  it('does not keep a read that started before a change to its row', async () => {
    const cache = on();
    let release!: () => void;
    const slow = cache.get('agent:agt_1', () => new Promise<string>((resolve) => (release = () => resolve('stale'))));
    cache.invalidate({ table: 'agents', id: 'agt_1' });
    release();
    expect(await slow).to.equal('stale');
    const src = counting(() => 'fresh');
    expect(await cache.get('agent:agt_1', src.load)).to.equal('fresh');
    expect(src.loads, 'the raced read was not kept').to.equal(1);
  });

  it('a changed key drops every cached lookup of it; a deleted agent drops its keys and entries', async () => {
    const cache = on();
    await cache.get('key:h1', async () => ({ id: 'key_1', agentId: 'agt_1' }));
    await cache.get('key:h2', async () => ({ id: 'key_2', agentId: 'agt_2' }));
    await cache.get('http_endpoints:agt_1', async () => [{ id: 'ep_1' }]);
    await cache.get('exposure:agt_1:doc_1', async () => ({ id: 'exp_1' }));
    expect(cache.size).to.equal(4);
    cache.invalidate({ table: 'api_keys', id: 'key_2' });
    expect(cache.size).to.equal(3);
    cache.invalidate({ table: 'agents', id: 'agt_1' });
    expect(cache.size).to.equal(0);
  });

  it("an entry change names its agent: only that agent's list is dropped (without one, every list of that kind)", async () => {
    const cache = on();
    for (const a of ['agt_1', 'agt_2']) {
      await cache.get(`http_endpoints:${a}`, async () => []);
      await cache.get(`mcp_tools:${a}`, async () => []);
    }
    cache.invalidate({ table: 'http_endpoints', id: 'ep_9', agentId: 'agt_1' });
    expect(cache.size).to.equal(3);
    cache.invalidate({ table: 'mcp_tools', id: 'tool_9' });
    expect(cache.size).to.equal(1);
  });

  it('is off until turned on, and while off every read goes to the database', async () => {
    const cache = new ReadCache(100);
    const src = counting(() => 1);
    await cache.get('team:t', src.load);
    await cache.get('team:t', src.load);
    expect(src.loads).to.equal(2);
    cache.setEnabled(true);
    await cache.get('team:t', src.load);
    await cache.get('team:t', src.load);
    expect(src.loads).to.equal(3);
    cache.setEnabled(false);
    await cache.get('team:t', src.load);
    expect(src.loads, 'turned off: read again').to.equal(4);
    expect(cache.size).to.equal(0);
  });

  it('holds at most its bound, dropping the least recently used first', async () => {
    const cache = new ReadCache(3);
    cache.setEnabled(true);
    for (const k of ['a', 'b', 'c']) await cache.get(`workspace:${k}`, async () => k);
    await cache.get('workspace:a', async () => 'reloaded');
    await cache.get('workspace:d', async () => 'd');
    expect(cache.size).to.equal(3);
    expect(await cache.get('workspace:a', async () => 'reloaded'), 'recently used: kept').to.equal('a');
    expect(await cache.get('workspace:b', async () => 'reloaded'), 'least recently used: dropped').to.equal('reloaded');
  });
});
