import { expect } from 'chai';
import { createAgent, gqlOk, type TestWorkspace } from '../helpers/harness.js';
import type { FakeOpenAi, FakeToolCall } from '../helpers/openai-server.js';
import { useFakeModelWorkspace } from '../helpers/runtime.js';
import {
  addHttpEndpoint,
  call,
  createAgentKey,
  createDocument,
  documentPath,
  httpApiPath,
} from '../helpers/surface-calls.js';

// What a prompt run with the Documents capability offers the model: the names, descriptions and
// JSON schemas of the document tools, as the local OpenAI-compatible test server records them in
// the `tools` of the request. The model only knows how to call a tool from this; a missing
// `required` or property lets it call with arguments the tool cannot use.

const DOC_ID = { type: 'string', description: 'The document id (see list_documents)' };
const FILTER = {
  type: 'object',
  description:
    'Field name → wanted value; a list means any of; or operators: {"score": {"gt": 7}} with eq, ne, gt, gte, lt, lte, in, contains (text), exists (true/false). Empty matches every record.',
  additionalProperties: true,
};
const SORT = {
  description: 'Order: {"field": name, "direction": "asc" | "desc"} or a list of up to 3; missing values last',
  anyOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }],
};
const LIMIT = { type: 'integer', minimum: 1, maximum: 1000 };
const OFFSET = { type: 'integer', minimum: 0 };

const OFFERED: Record<string, { description: string; parameters: Record<string, unknown> }> = {
  list_documents: {
    description: "List this agent's documents (id, name, kind, fields).",
    parameters: { type: 'object', properties: {} },
  },
  read_document: {
    description: 'Read a document: its content, and for a database its fields and first records.',
    parameters: {
      type: 'object',
      properties: { documentId: DOC_ID, limit: LIMIT, offset: OFFSET },
      required: ['documentId'],
    },
  },
  query_records: {
    description:
      'Find records of a database document by field values or comparisons, sorted, a page at a time (pass nextCursor back as cursor for the next page).',
    parameters: {
      type: 'object',
      properties: {
        documentId: DOC_ID,
        filter: FILTER,
        sort: SORT,
        limit: LIMIT,
        offset: OFFSET,
        cursor: { type: 'string' },
      },
      required: ['documentId'],
    },
  },
  insert_records: {
    description: 'Insert records into a database document (all or nothing).',
    parameters: {
      type: 'object',
      properties: { documentId: DOC_ID, items: { type: 'array', items: { type: 'object' } } },
      required: ['documentId', 'items'],
    },
  },
  update_records: {
    description: 'Set fields on the records matching a filter.',
    parameters: {
      type: 'object',
      properties: { documentId: DOC_ID, filter: FILTER, set: { type: 'object' }, all: { type: 'boolean' } },
      required: ['documentId', 'filter', 'set'],
    },
  },
  delete_records: {
    description: 'Delete the records matching a filter (an empty filter needs all: true).',
    parameters: {
      type: 'object',
      properties: { documentId: DOC_ID, filter: FILTER, all: { type: 'boolean' } },
      required: ['documentId', 'filter'],
    },
  },
};

/** The tools of a recorded request, by name: `{description, parameters}` as the model receives them. */
function offeredTools(
  tools: unknown[] | undefined,
): Record<string, { description: string; parameters: Record<string, unknown> }> {
  const byName: Record<string, { description: string; parameters: Record<string, unknown> }> = {};
  for (const t of (tools ?? []) as {
    type: string;
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }[]) {
    // The SDK may add JSON-schema bookkeeping ($schema, additionalProperties) to the top level; the
    // tool's own shape is what the model is told, so compare that.
    const { $schema: _s, additionalProperties: _a, ...parameters } = t.function.parameters;
    byName[t.function.name] = { description: t.function.description, parameters };
  }
  return byName;
}

describe('document tools offered to the model', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;

  useFakeModelWorkspace((s) => ({ fake, ws } = s));

  async function documentsAgent(): Promise<{ id: string; key: string }> {
    const id = await createAgent(ws.adminToken, { name: 'Librarian', defaultModel: 'test-model' });
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!, $c: CapabilitiesInput!) { setCapabilities(agentId: $a, input: $c) { id } }',
      { a: id, c: { documents: true } },
    );
    await addHttpEndpoint(ws.adminToken, id, { path: 'assist', handler: { prompt: 'Use your tools.' } });
    return { id, key: await createAgentKey(ws.adminToken, id) };
  }

  /** Runs the prompt endpoint while the model makes `steps` of tool calls, then answers; returns the tool results. */
  async function runTools(agent: { id: string; key: string }, steps: FakeToolCall[][]): Promise<any[]> {
    fake.enqueue(...steps.map((toolCalls) => ({ toolCalls })), { text: 'done' });
    const r = await call('POST', httpApiPath(agent.id, 'assist'), {
      key: agent.key,
      json: { task: 'work on documents' },
    });
    expect(r.status, r.text).to.equal(200);
    expect(fake.pending()).to.equal(0);
    return fake.requests
      .at(-1)!
      .body.messages!.filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(String(m.content)));
  }

  it('each document tool is offered with its name, its description and the arguments it needs, required ones marked required', async () => {
    const agent = await documentsAgent();
    await runTools(agent, []);
    const offered = offeredTools(fake.requests[0]!.body.tools);
    for (const [name, expected] of Object.entries(OFFERED)) {
      expect(offered[name], `${name} is offered`).to.not.equal(undefined);
      expect(offered[name], name).to.deep.equal(expected);
    }
  });

  it("update_records and delete_records work on the agent's own database even when it is not exposed through the Document API", async () => {
    const agent = await documentsAgent();
    const leads = await createDocument(ws.adminToken, agent.id, {
      name: 'Private leads',
      kind: 'DATABASE',
      fields: [
        { name: 'email', type: 'STRING', required: true },
        { name: 'score', type: 'NUMBER' },
      ],
    });
    const [inserted, updated, deleted, read] = await runTools(agent, [
      [
        {
          name: 'insert_records',
          arguments: {
            documentId: leads,
            items: [
              { email: 'a@example.com', score: 1 },
              { email: 'b@example.com', score: 2 },
            ],
          },
        },
      ],
      [
        {
          name: 'update_records',
          arguments: { documentId: leads, filter: { email: 'b@example.com' }, set: { score: 5 } },
        },
      ],
      [{ name: 'delete_records', arguments: { documentId: leads, filter: { email: 'a@example.com' } } }],
      [{ name: 'query_records', arguments: { documentId: leads, filter: {} } }],
    ]);
    expect(inserted.inserted).to.equal(2);
    expect(updated).to.deep.equal({ updated: 1 });
    expect(deleted).to.deep.equal({ deleted: 1 });
    expect(JSON.stringify(read)).to.contain('b@example.com').and.not.contain('a@example.com');
    // The Document API still does not serve it: the tools did not expose it on the way.
    const viaApi = await call('GET', documentPath(agent.id, leads), { key: agent.key });
    expect(viaApi.status).to.equal(404);
  });
});
