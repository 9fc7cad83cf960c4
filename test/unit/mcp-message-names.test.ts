import { expect } from 'chai';
import type { Store } from '../../src/domain/ports.js';
import { isProtocolMethod, McpService } from '../../src/domain/surfaces/mcp.service.js';
import type { SurfaceRuns } from '../../src/domain/surfaces/surface-runs.ports.js';
import type { CallFacts, SurfaceCaller } from '../../src/domain/surfaces/surface-access.js';

// What an MCP message tells its activity entry (issue 51, "One activity row per call"): the tool a
// `tools/call` names, otherwise its JSON-RPC method — never nothing when there is one — and whether
// it is protocol traffic (a handshake, a ping, a notification) rather than a call of the agent.

const service = new McpService({} as Store, {} as SurfaceRuns);

function read(text: string): CallFacts {
  const caller = { facts: {} } as SurfaceCaller;
  service.message(caller, text);
  return caller.facts;
}

describe('MCP messages in the activity log', () => {
  it('the handshake, pings and notifications are protocol traffic, named by their method', () => {
    expect(read('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}')).to.include({
      entry: 'initialize',
      protocol: true,
    });
    expect(read('{"jsonrpc":"2.0","method":"notifications/initialized"}')).to.include({
      entry: 'notifications/initialized',
      protocol: true,
    });
    expect(read('{"jsonrpc":"2.0","id":2,"method":"ping"}')).to.include({ protocol: true });
    expect(read('{"jsonrpc":"2.0","id":3,"method":"server/discover"}')).to.include({ protocol: true });
    expect(isProtocolMethod('notifications/cancelled')).to.equal(true);
  });

  it('a list or a call is the agent’s: named by its method, or by the tool it calls', () => {
    const list = read('{"jsonrpc":"2.0","id":4,"method":"tools/list"}');
    expect(list.entry).to.equal('tools/list');
    expect(list.protocol).to.equal(undefined);
    expect(read('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{}}}')).to.include({
      entry: 'add',
    });
    // A call without a usable tool name is named by its method.
    expect(read('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":7}}').entry).to.equal('tools/call');
    expect(read('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[]}').entry).to.equal('tools/call');
    expect(read('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":""}}').entry).to.equal('tools/call');
    expect(read('{"jsonrpc":"2.0","id":9,"method":"tools/call"}').entry).to.equal('tools/call');
    expect(isProtocolMethod('tools/list')).to.equal(false);
    expect(isProtocolMethod('initialized')).to.equal(false);
  });

  it('a name is kept to 100 characters; a message without a method, or not JSON, names nothing', () => {
    expect(read(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x'.repeat(500) })).entry).to.have.length(100);
    expect(read('{"jsonrpc":"2.0","id":1,"result":{}}').entry).to.equal(undefined);
    expect(read('{"jsonrpc":"2.0","id":1,"method":42}').entry).to.equal(undefined);
    expect(read('not json').entry).to.equal(undefined);
    expect(read('null').entry).to.equal(undefined);
  });
});
