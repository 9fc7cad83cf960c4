import { expect } from 'chai';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// An agent's documents as resources of its MCP server, over real HTTP, in both protocol eras (the
// v1 SDK client with `initialize`, the v2 client pinned to 2026-07-28): only documents exposed with
// the MCP permission are listed and readable; a text document reads as text, a database document
// as JSON pages of its records, paged by the template's URIs; an unexposed, unknown or other
// agent's document is neither listed nor readable (the SDK's resource-not-found error), and turning
// the permission off hides a document again.

type Era = '2025-11-25' | '2026-07-28';
const ERAS: Era[] = ['2025-11-25', '2026-07-28'];

/** What the scenarios need from either client. */
interface ResourceClient {
  capabilities: Record<string, unknown> | undefined;
  listResources(): Promise<{ resources: any[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: any[] }>;
  readResource(uri: string): Promise<{ contents: any[] }>;
  close(): Promise<void>;
}

/** The methods both client generations share, under the same names. */
interface SdkClient {
  getServerCapabilities(): unknown;
  listResources(): Promise<{ resources: any[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: any[] }>;
  readResource(params: { uri: string }): Promise<{ contents: any[] }>;
  close(): Promise<void>;
}

function wrap(client: SdkClient): ResourceClient {
  return {
    capabilities: client.getServerCapabilities() as Record<string, unknown> | undefined,
    listResources: () => client.listResources(),
    listResourceTemplates: () => client.listResourceTemplates(),
    readResource: (uri) => client.readResource({ uri }),
    close: () => client.close(),
  };
}

async function connect(era: Era, url: string, key: string): Promise<ResourceClient> {
  const requestInit = { headers: { 'X-Agent-Access-Key': key } };
  if (era === '2025-11-25') {
    const client = new V1Client({ name: 'resources-v1', version: '1.0.0' });
    const transport = new V1Transport(new URL(url), { requestInit });
    await client.connect(transport);
    expect(transport.protocolVersion).to.equal(era);
    return wrap(client);
  }
  const client = new V2Client(
    { name: 'resources-v2', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: era } } },
  );
  await client.connect(new V2Transport(new URL(url), { requestInit }));
  expect(client.getNegotiatedProtocolVersion()).to.equal(era);
  return wrap(client);
}

async function rejection(p: Promise<unknown>): Promise<Error & { code?: number; data?: unknown }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { code?: number; data?: unknown };
  }
  throw new Error('expected a rejection');
}

describe('e2e: MCP resources (exposed documents)', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let agent: string, other: string, key: string;
  let notes: string, tasks: string, hidden: string, otherDoc: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);
  const mcpUrl = (a: string) => `${svc.url}/agents/${a}/mcp`;
  const TASKS = Array.from({ length: 130 }, (_, i) => ({
    title: `task ${String(i).padStart(3, '0')}`,
    done: i % 2 === 0,
  }));

  async function createDoc(a: string, input: Record<string, unknown>): Promise<string> {
    return (
      await gql('mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }', {
        a,
        i: input,
      })
    ).createDocument.id;
  }
  const expose = async (a: string, d: string, perms: Record<string, boolean>) =>
    (
      await gql(
        'mutation($a: ID!, $d: ID!, $r: Boolean, $w: Boolean, $m: Boolean) { exposeDocument(agentId: $a, documentId: $d, read: $r, write: $w, mcp: $m) { read write mcp } }',
        { a, d, r: perms.read, w: perms.write, m: perms.mcp },
      )
    ).exposeDocument;

  before(async () => {
    svc = await startE2eService('mcp_resources_e2e');
    const mk = async (name: string) =>
      (
        await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
          i: { name, defaultModel: 'fake-model' },
        })
      ).createAgent.id as string;
    [agent, other] = [await mk('Librarian'), await mk('Other')];
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: MCP, enabled: true) { id } }', { a: agent });
    key = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: agent }))
      .createAgentApiKey.key;
    notes = await createDoc(agent, {
      name: 'Notes',
      description: 'House rules',
      kind: 'TEXT',
      content: 'Be kind.\nShip small.',
    });
    tasks = await createDoc(agent, {
      name: 'Tasks',
      kind: 'DATABASE',
      fields: [
        { name: 'title', type: 'STRING', required: true },
        { name: 'done', type: 'BOOLEAN' },
      ],
    });
    hidden = await createDoc(agent, { name: 'Hidden', kind: 'TEXT', content: 'secret plans' });
    otherDoc = await createDoc(other, { name: 'Elsewhere', kind: 'TEXT', content: 'not yours' });
    // Notes only on MCP; Tasks on both; Hidden on the Document API only; Elsewhere on MCP, of another agent.
    expect(await expose(agent, notes, { read: false, mcp: true })).to.deep.equal({
      read: false,
      write: false,
      mcp: true,
    });
    expect(await expose(agent, tasks, { read: true, write: true, mcp: true })).to.deep.equal({
      read: true,
      write: true,
      mcp: true,
    });
    expect(await expose(agent, hidden, { read: true, write: true })).to.deep.equal({
      read: true,
      write: true,
      mcp: false,
    });
    await expose(other, otherDoc, { mcp: true });
    const res = await fetch(`${svc.url}/agents/${agent}/documents/${tasks}/data/insert`, {
      method: 'POST',
      headers: { 'X-Agent-Access-Key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items: TASKS }),
    });
    expect(res.status, await res.clone().text()).to.equal(200);
  });

  after(async () => {
    await svc?.stop();
  });

  for (const era of ERAS) {
    describe(`protocol ${era}`, () => {
      let client: ResourceClient;
      before(async () => {
        client = await connect(era, mcpUrl(agent), key);
      });
      after(async () => client?.close());

      it('announces resources without listChanged, and lists only the documents exposed with the MCP permission', async () => {
        expect(client.capabilities?.resources).to.deep.equal({});
        const { resources } = await client.listResources();
        expect(resources).to.deep.equal([
          { uri: `document://${notes}`, name: 'Notes', description: 'House rules', mimeType: 'text/plain' },
          { uri: `document://${tasks}/records`, name: 'Tasks', mimeType: 'application/json' },
        ]);
      });

      it('offers the template of record pages', async () => {
        const { resourceTemplates } = await client.listResourceTemplates();
        expect(resourceTemplates.map((t) => [t.uriTemplate, t.mimeType])).to.deep.equal([
          ['document://{documentId}/records{?cursor}', 'application/json'],
        ]);
      });

      it('reads a text document as its text', async () => {
        const { contents } = await client.readResource(`document://${notes}`);
        expect(contents).to.deep.equal([
          { uri: `document://${notes}`, mimeType: 'text/plain', text: 'Be kind.\nShip small.' },
        ]);
      });

      it("reads a database document as JSON pages of its records, following each page's next URI", async () => {
        const first = (await client.readResource(`document://${tasks}/records`)).contents;
        expect(first).to.have.length(1);
        expect(first[0].mimeType).to.equal('application/json');
        const page1 = JSON.parse(first[0].text);
        expect(page1).to.deep.include({ documentId: tasks, name: 'Tasks', totalCount: 130 });
        expect(page1.fields.map((f: { name: string }) => f.name)).to.deep.equal(['title', 'done']);
        expect(page1.records).to.have.length(100);
        expect(page1.records[0]).to.deep.include(TASKS[0]).and.to.have.property('id');
        expect(page1.next).to.match(new RegExp(`^document://${tasks}/records\\?cursor=`));

        const second = (await client.readResource(page1.next)).contents;
        expect(second[0].uri).to.equal(page1.next);
        const page2 = JSON.parse(second[0].text);
        expect(page2.records.map((r: { title: string }) => r.title)).to.deep.equal(
          TASKS.slice(100).map((t) => t.title),
        );
        expect(page2.next).to.equal(null);
      });

      it("an unexposed, unknown or other agent's document, or a URI of the wrong form, is not found", async () => {
        for (const uri of [
          `document://${hidden}`,
          `document://${otherDoc}`,
          'document://doc_nothing',
          `document://${notes}/records`,
          `document://${tasks}`,
          `file:///etc/passwd`,
        ]) {
          const err = await rejection(client.readResource(uri));
          expect(err.code, uri).to.equal(-32602);
          expect(err.data, uri).to.deep.equal({ uri });
        }
      });

      it("a cursor that is not a previous page's is invalid params naming the cursor", async () => {
        const err = await rejection(client.readResource(`document://${tasks}/records?cursor=bm9wZQ`));
        expect(err.code).to.equal(-32602);
        expect(err.message).to.match(/cursor/);
      });
    });
  }

  // After the per-era scenarios (mocha runs a suite's own tests before its nested suites).
  describe('afterwards', () => {
    it('the activity entry of a read names the resource', async () => {
      const client = await connect('2026-07-28', mcpUrl(agent), key);
      await client.readResource(`document://${notes}`);
      await client.close();
      await svc.service.services.activityLog.flush();
      const d = await gql(
        'query($a: ID!) { agent(id: $a) { activity(first: 5) { nodes { surface entry status } } } }',
        { a: agent },
      );
      expect(d.agent.activity.nodes[0]).to.deep.equal({ surface: 'MCP', entry: `document://${notes}`, status: 200 });
    });

    it('turning the MCP permission off hides the document again in both eras (the Document API keeps its read)', async () => {
      expect(await expose(agent, tasks, { read: true, write: true, mcp: false })).to.deep.equal({
        read: true,
        write: true,
        mcp: false,
      });
      for (const era of ERAS) {
        const client = await connect(era, mcpUrl(agent), key);
        try {
          expect(
            (await client.listResources()).resources.map((r) => r.name),
            era,
          ).to.deep.equal(['Notes']);
          const err = await rejection(client.readResource(`document://${tasks}/records`));
          expect(err.code, era).to.equal(-32602);
        } finally {
          await client.close();
        }
      }
      const res = await fetch(`${svc.url}/agents/${agent}/documents/${tasks}`, {
        headers: { 'X-Agent-Access-Key': key },
      });
      expect(res.status).to.equal(200);
      // Omitting mcp leaves it as it is; unexposing removes the document from MCP too.
      expect(await expose(agent, notes, { read: true })).to.deep.equal({ read: true, write: false, mcp: true });
      await gql('mutation($a: ID!, $d: ID!) { unexposeDocument(agentId: $a, documentId: $d) }', { a: agent, d: notes });
      const client = await connect('2025-11-25', mcpUrl(agent), key);
      try {
        expect((await client.listResources()).resources).to.deep.equal([]);
      } finally {
        await client.close();
      }
    });
  });
});
