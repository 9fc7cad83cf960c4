import { expect } from 'chai';
import type { CallCancel, CancelChannel } from '../../src/domain/calls/call-cancel.ports.js';
import { callerIdentity } from '../../src/domain/surfaces/caller-identity.js';
import type { SurfaceCaller } from '../../src/domain/surfaces/surface-access.js';
import { formatCancel, MAX_REQUEST_ID_JSON, parseCancel } from '../../src/infra/surfaces/cancel-channel.js';
import { CallCancels as RunningCalls, localCancelChannel } from '../../src/domain/calls/call-cancels.js';

// What a `notifications/cancelled` reaches: a single running call of the same agent, caller and
// JSON-RPC id, here or (through the channel) on another instance; and what the channel carries.

/** A channel in memory: what was published, and a way to deliver a cancel as another instance would. */
function memoryChannel(): CancelChannel & { published: CallCancel[]; deliver(c: CallCancel): void } {
  const handlers = new Set<(c: CallCancel) => void>();
  const published: CallCancel[] = [];
  return {
    published,
    publish: async (c) => void published.push(c),
    subscribe: (h) => (handlers.add(h), () => void handlers.delete(h)),
    deliver: (c) => handlers.forEach((h) => h(c)),
  };
}

const call = (requestId: string | number, caller = 'key:k1', agentId = 'agent-1', surface = 'MCP'): CallCancel => ({
  surface: surface as CallCancel['surface'],
  agentId,
  caller,
  requestId,
});

describe('Call cancellation: running calls and the cancel channel (MCP, A2A)', () => {
  it('a cancel for a call running here aborts it without announcing it', async () => {
    const channel = memoryChannel();
    const running = new RunningCalls(channel);
    const c = new AbortController();
    running.register(call('a'), c);
    await running.cancel(call('a'));
    expect(c.signal.aborted).to.equal(true);
    expect(channel.published).to.deep.equal([]);
  });

  it('a cancel for a call not running here is announced; a delivered one aborts the single matching call', async () => {
    const channel = memoryChannel();
    const running = new RunningCalls(channel);
    await running.cancel(call(7));
    expect(channel.published).to.deep.equal([call(7)]);
    const c = new AbortController();
    running.register(call(7), c);
    channel.deliver(call('7'));
    channel.deliver(call(7, 'key:k2'));
    channel.deliver(call(7, 'key:k1', 'agent-2'));
    channel.deliver(call(7, 'key:k1', 'agent-1', 'A2A'));
    expect(c.signal.aborted, 'another id type, caller, agent or surface').to.equal(false);
    channel.deliver(call(7));
    expect(c.signal.aborted).to.equal(true);
  });

  it('an id naming two running calls of the same caller cancels neither, here or from another instance', async () => {
    const channel = memoryChannel();
    const running = new RunningCalls(channel);
    const [c1, c2] = [new AbortController(), new AbortController()];
    running.register(call(1), c1);
    const forget = running.register(call(1), c2);
    await running.cancel(call(1));
    channel.deliver(call(1));
    expect([c1.signal.aborted, c2.signal.aborted]).to.deep.equal([false, false]);
    expect(channel.published).to.deep.equal([]);
    forget();
    channel.deliver(call(1));
    expect(c1.signal.aborted).to.equal(true);
  });

  it("the embedded database's channel delivers in memory: two registries of one process reach each other", async () => {
    const channel = localCancelChannel();
    const [here, there] = [new RunningCalls(channel), new RunningCalls(channel)];
    const c = new AbortController();
    there.register(call('task-1', 'key:k1', 'agent-1', 'A2A'), c);
    expect(await here.cancel(call('task-1', 'key:k1', 'agent-1', 'MCP'))).to.equal('announced');
    expect(c.signal.aborted, 'another surface').to.equal(false);
    expect(await here.cancel(call('task-1', 'key:k1', 'agent-1', 'A2A'))).to.equal('announced');
    expect(c.signal.aborted).to.equal(true);
    expect(await there.cancel(call('task-1', 'key:k1', 'agent-1', 'A2A'))).to.equal('here');
  });

  it('the channel carries bounded cancels and believes nothing else', () => {
    const c = call('req-1');
    expect(parseCancel(formatCancel(c)!)).to.deep.equal(c);
    expect(parseCancel(formatCancel(call(42))!)).to.deep.equal(call(42));
    expect(parseCancel(formatCancel(call('t', 'k', 'a', 'A2A'))!)).to.deep.equal(call('t', 'k', 'a', 'A2A'));
    const longId = 'x'.repeat(MAX_REQUEST_ID_JSON);
    expect(formatCancel(call(longId)), 'an id whose JSON is over the cap').to.equal(null);
    expect(formatCancel(call(longId.slice(2)))).to.be.a('string');
    for (const bad of [
      '',
      'not json',
      'null',
      '{"a":"x","c":"y"}',
      '{"a":"x","c":"y","i":1}',
      '{"s":"NOPE","a":"x","c":"y","i":1}',
      '{"a":"x","c":"y","i":{"o":1}}',
      '{"s":"MCP","a":1,"c":"y","i":1}',
      `{"s":"MCP","a":"x","c":"y","i":"${longId}"}`,
      `{"s":"MCP","a":"${'x'.repeat(1000)}","c":"y","i":1}`,
    ]) {
      expect(parseCancel(bad), bad.slice(0, 40)).to.equal(null);
    }
  });

  it('the caller identity is the key for key callers', () => {
    const caller = (keyId: string | null) =>
      ({
        keyId,
        principal: { kind: 'agentKey', keyId: keyId ?? '', workspaceId: 'w', agentId: 'a' },
      }) as unknown as SurfaceCaller;
    expect(callerIdentity(caller('k1'))).to.equal('key:k1');
    expect(callerIdentity(caller('k1'))).to.not.equal(callerIdentity(caller('k2')));
  });
});
