import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { databaseEnv, graphqlClient } from '../helpers/process.js';
import { startSurfaceService, type InProcessService } from '../helpers/surface-service.js';

// Two instances of the service on one PostgreSQL database behind a "load balancer" that sends each
// HTTP request of one MCP client to the other instance in turn: the MCP server keeps nothing in
// process memory between requests, so no session affinity is needed, in either protocol era. An
// embedded database belongs to one process, so this runs only with TEST_DATABASE_URL.

const ADMIN_TOKEN = 'mcp-two-admin-token-0123456789'; // 30 characters

describe('e2e: MCP server on two instances', function () {
  this.timeout(180_000);
  const dirs = [
    fs.mkdtempSync(path.join(os.tmpdir(), 'aes-mcp2-a-')),
    fs.mkdtempSync(path.join(os.tmpdir(), 'aes-mcp2-b-')),
  ];
  let instances: InProcessService[] = [];
  let fake: FakeOpenAi;
  let database: Awaited<ReturnType<typeof databaseEnv>> | undefined;
  let agent: string;
  let key: string;

  before(async function () {
    if (!process.env.TEST_DATABASE_URL) this.skip();
    fake = await startOpenAiServer();
    database = await databaseEnv('mcp_two');
    for (const dataDir of dirs) {
      instances.push(
        await startSurfaceService({
          dataDir,
          adminToken: ADMIN_TOKEN,
          modelUrl: fake.url,
          platformOrigin: 'https://app.example.test',
          database: database.env,
        }),
      );
    }
    const gql = graphqlClient(() => instances[0]!.url, ADMIN_TOKEN);
    agent = (await gql('mutation { createAgent(input: { name: "Shared", description: "On two instances" }) { id } }'))
      .createAgent.id;
    key = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: agent }))
      .createAgentApiKey.key;
    await gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: {
        name: 'square',
        description: 'Squares n',
        handler: { script: 'return { n: input.n * input.n };' },
        inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      },
    });
  });

  after(async () => {
    for (const i of instances) await i.stop();
    instances = [];
    await fake?.close();
    await database?.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  /** A fetch that sends each request to the next instance in turn, and counts where each went. */
  function alternating(hits: number[]): typeof fetch {
    let next = 0;
    return (input, init) => {
      const i = next++ % instances.length;
      hits[i]!++;
      const url = new URL(input instanceof Request ? input.url : String(input));
      const target = new URL(instances[i]!.url);
      url.host = target.host;
      return fetch(url, init);
    };
  }

  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    it(`one ${era} client is answered by both instances alternately`, async () => {
      const hits = [0, 0];
      const url = new URL(`${instances[0]!.url}/agents/${agent}/mcp`);
      const headers = { 'X-Agent-Access-Key': key };
      const opts = { requestInit: { headers }, fetch: alternating(hits) };
      let list: () => Promise<{ tools: { name: string }[] }>;
      let callTool: (n: number) => Promise<any>;
      let close: () => Promise<void>;
      if (era === '2025-11-25') {
        const client = new V1Client({ name: 'lb-v1', version: '1.0.0' });
        const transport = new V1Transport(url, opts);
        await client.connect(transport);
        expect(transport.protocolVersion).to.equal(era);
        list = () => client.listTools();
        callTool = (n) => client.callTool({ name: 'square', arguments: { n } });
        close = () => client.close();
      } else {
        const client = new V2Client(
          { name: 'lb-v2', version: '2.0.0' },
          { versionNegotiation: { mode: { pin: era } } },
        );
        await client.connect(new V2Transport(url, opts));
        expect(client.getNegotiatedProtocolVersion()).to.equal(era);
        list = () => client.listTools();
        callTool = (n) => client.callTool({ name: 'square', arguments: { n } });
        close = () => client.close();
      }
      try {
        expect((await list()).tools.map((t) => t.name)).to.deep.equal(['square']);
        for (let n = 1; n <= 6; n++)
          expect(JSON.parse((await callTool(n)).content[0].text)).to.deep.equal({ n: n * n });
      } finally {
        await close();
      }
      expect(hits[0]).to.be.greaterThan(2);
      expect(hits[1]).to.be.greaterThan(2);
      expect(Math.abs(hits[0]! - hits[1]!)).to.be.at.most(1);
    });
  }
});
