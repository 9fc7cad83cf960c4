import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { call, createAgentKey } from '../helpers/surface-calls.js';
import { until } from '../helpers/until.js';
import { workspaceKey, wsApi } from '../helpers/workspace-api.js';

// One activity row per call (issue 51): what a real MCP client's handshake writes (initialize, its
// notification, the GET stream probe answered 405) is protocol traffic, listed only when asked and
// never an error; the `tools/list` it came for is the one row. A webhook's receipt and its run are
// one row with both statuses when the list folds the delivery's runs into the receipt.

const ACTIVITY = `query($a: ID!, $p: Boolean!, $f: Boolean!, $s: Surface, $st: String) {
  agent(id: $a) { activity(first: 50, includeProtocol: $p, foldDeliveryRuns: $f, surface: $s, status: $st) {
    nodes { id kind surface entry method status error protocol deliveryId response
      deliveryRun { kind status error runId deliveryId response } } } } }`;

describe('e2e: one activity row per call', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let agent: string;

  beforeEach(async () => {
    ws = await newWorkspace();
    agent = await createAgent(ws.adminToken);
  });

  async function activity(opts: { protocol?: boolean; fold?: boolean; surface?: string; status?: string } = {}) {
    await h().service.services.activityLog.flush();
    const d = await gqlOk(ws.adminToken, ACTIVITY, {
      a: agent,
      p: opts.protocol ?? false,
      f: opts.fold ?? false,
      s: opts.surface ?? null,
      st: opts.status ?? null,
    });
    return d.agent.activity.nodes as any[];
  }

  it('MCP: the SDK client’s initialize, notification and stream probe are protocol rows; tools/list is the one row', async () => {
    await gqlOk(ws.adminToken, 'mutation($a: ID!) { setSurface(agentId: $a, surface: MCP, enabled: true) { id } }', {
      a: agent,
    });
    await gqlOk(ws.adminToken, 'mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { name: 'echo', description: 'Echoes', handler: { script: 'return input;' } },
    });
    const key = await createAgentKey(ws.adminToken, agent);
    const client = new Client({ name: 'activity-rows', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${h().url}/agents/${agent}/mcp`), {
      requestInit: { headers: { 'X-Agent-Access-Key': key } },
    });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).to.deep.equal(['echo']);
      // The client opens its optional GET stream in the background after the handshake: wait for its entry.
      const all = await until('the stream probe is logged', async () => {
        const rows = await activity({ protocol: true });
        return rows.some((r) => r.method === 'GET') ? rows : undefined;
      });
      const protocol = all.filter((r) => r.protocol);
      expect(protocol.map((r) => r.entry ?? r.method).sort()).to.deep.equal([
        'GET',
        'initialize',
        'notifications/initialized',
      ]);
      const probe = protocol.find((r) => r.method === 'GET');
      expect(probe).to.include({ status: 405, error: null, surface: 'MCP' });
      for (const r of protocol) expect(r.error, r.entry).to.equal(null);

      const rows = await activity();
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ entry: 'tools/list', method: 'POST', status: 200, protocol: false, error: null });
      // The expected 405 is no error: the error filter finds nothing, even with protocol traffic listed.
      expect(await activity({ protocol: true, status: 'error' })).to.deep.equal([]);
    } finally {
      await client.close();
    }

    // The Workspace API lists the same: protocol traffic only with includeProtocol=true.
    const { key: wk } = await workspaceKey(ws.adminToken);
    const plain = await wsApi(`/workspaceapi/agents/${agent}/activity`, { key: wk });
    expect(plain.status).to.equal(200);
    expect(plain.body.totalCount).to.equal(1);
    expect(plain.body.entries[0]).to.include({ entry: 'tools/list', protocol: false, deliveryId: null });
    const withProtocol = await wsApi(`/workspaceapi/agents/${agent}/activity?includeProtocol=true`, { key: wk });
    expect(withProtocol.body.totalCount).to.equal(4);
    expect(withProtocol.body.entries.filter((e: any) => e.protocol)).to.have.length(3);
    const refused = await wsApi(`/workspaceapi/agents/${agent}/activity?includeProtocol=yes`, { key: wk });
    expect(refused.status).to.equal(400);
    expect(refused.body.error).to.include('includeProtocol must be true or false');
  });

  /** Adds a webhook whose handler is `script`, sends it a delivery, and returns the delivery's id. */
  async function deliver(integration: string, script: string): Promise<string> {
    await gqlOk(ws.adminToken, 'mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { integration, handler: { script } },
    });
    const r = await call('POST', `/agents/${agent}/webhook/${integration}`, { json: { orderId: 42 } });
    expect(r.status, r.text).to.equal(200);
    return r.json.deliveryId as string;
  }

  it('a webhook: the receipt and its run are one row with both statuses', async () => {
    const deliveryId = await deliver('orders', 'return { seen: input.orderId };');
    const [row] = await until('the run is folded into its receipt', async () => {
      const rows = await activity({ fold: true });
      return rows[0]?.deliveryRun ? rows : undefined;
    });
    expect(await activity({ fold: true })).to.have.length(1);
    expect(row).to.include({ kind: 'REQUEST', entry: 'orders', status: 200, error: null, deliveryId });
    expect(row.deliveryRun).to.include({ kind: 'RUN', status: null, error: null, deliveryId });
    expect(row.deliveryRun.runId).to.match(/^run_/);
    expect(row.deliveryRun.response).to.deep.equal({ output: { seen: 42 } });
    // Unfolded, the log holds both entries, appended when each happened, sharing the delivery.
    const entries = await activity();
    expect(entries.map((e) => [e.kind, e.deliveryId])).to.deep.equal([
      ['RUN', deliveryId],
      ['REQUEST', deliveryId],
    ]);
  });

  it('a webhook whose run failed: one row, received 200 · run failed; the error filter finds the run', async () => {
    const deliveryId = await deliver('broken', 'throw new Error("no such order");');
    const [row] = await until('the failed run is folded into its receipt', async () => {
      const rows = await activity({ fold: true });
      return rows[0]?.deliveryRun ? rows : undefined;
    });
    expect(row).to.include({ kind: 'REQUEST', status: 200, error: null, deliveryId });
    expect(row.deliveryRun.error).to.contain('no such order');
    // The receipt (200) does not match "error": the failed run stands on its own there.
    const errors = await activity({ fold: true, status: 'error' });
    expect(errors.map((e) => [e.kind, e.deliveryId])).to.deep.equal([['RUN', deliveryId]]);
  });
});
