import { expect } from 'chai';
import { createAgent, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import {
  activityOf,
  call,
  createAgentKey,
  createDocument,
  documentPath,
  exposeDocument,
} from '../helpers/surface-calls.js';

// JSON-RPC batches left MCP in protocol 2025-06-18, and neither era this service speaks has them.
// A JSON array body is refused before anything runs: one POST is at most one tool call, and one
// activity entry. Each call of the tool below inserts one record, so the records count the runs.

const CALL_TOOL = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'count', arguments: { n: id } },
});
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

describe('MCP: a JSON-RPC batch is refused before anything runs', function () {
  this.timeout(30_000);
  let ws: TestWorkspace;
  let agent: string;
  let key: string;
  let doc: string;

  beforeEach(async () => {
    ws = await newWorkspace();
    agent = await createAgent(ws.adminToken);
    key = await createAgentKey(ws.adminToken, agent);
    doc = await createDocument(ws.adminToken, agent, {
      name: 'hits',
      kind: 'DATABASE',
      fields: [{ name: 'n', type: 'NUMBER', required: true }],
    });
    for (const surface of ['MCP', 'DOCUMENT_API']) {
      await gqlOk(
        ws.adminToken,
        'mutation($a: ID!, $s: Surface!) { setSurface(agentId: $a, surface: $s, enabled: true) { id } }',
        { a: agent, s: surface },
      );
    }
    await exposeDocument(ws.adminToken, agent, doc, true, false);
    await gqlOk(ws.adminToken, 'mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: {
        name: 'count',
        description: 'Counts one call',
        handler: { script: `await documents.insert(${JSON.stringify(doc)}, [{ n: input.n }]); return 'counted';` },
        inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
      },
    });
  });

  /** Records the tool inserted (one per run), read through the Document API. */
  async function runsCounted(): Promise<number> {
    const r = await call('POST', documentPath(agent, doc, 'query'), { key, json: { filter: {} } });
    expect(r.status, r.text).to.equal(200);
    return r.json.totalCount as number;
  }

  it('50 tools/call in one POST: HTTP 400 with JSON-RPC -32600, nothing runs, one activity entry marked refused', async () => {
    const batch = Array.from({ length: 50 }, (_, i) => CALL_TOOL(i + 1));
    const r = await call('POST', `/agents/${agent}/mcp`, { key, json: batch, headers: MCP_HEADERS });
    expect(r.status, r.text).to.equal(400);
    expect(r.json).to.deep.include({ jsonrpc: '2.0', id: null });
    expect(r.json.error.code).to.equal(-32600);
    expect(r.json.error.message).to.match(/batch/i);

    const entries = await activityOf(ws.adminToken, agent);
    expect(entries.map((e) => [e.surface, e.status, e.runId])).to.deep.equal([['MCP', 400, null]]);
    expect(await runsCounted()).to.equal(0);

    // A single call afterwards runs once, as before; the records show that only it ran.
    const single = await call('POST', `/agents/${agent}/mcp`, { key, json: CALL_TOOL(7), headers: MCP_HEADERS });
    expect(single.status, single.text).to.equal(200);
    expect(single.text).to.contain('counted');
    expect(await runsCounted()).to.equal(1);
  });
});
