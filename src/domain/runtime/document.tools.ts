import type { RecordService } from '../documents/record.service.js';
import type { Principal } from '../principal.js';
import type { Json } from '../json.js';
import type { ToolDefinition } from '../models/language-model.ports.js';

const docId = { type: 'string', description: 'The document id (see list_documents)' };
const filter = {
  type: 'object',
  description:
    'Field name → wanted value; a list means any of; or operators: {"score": {"gt": 7}} with eq, ne, gt, gte, lt, lte, in, contains (text), exists (true/false). Empty matches every record.',
  additionalProperties: true,
};
const sort = {
  description: 'Order: {"field": name, "direction": "asc" | "desc"} or a list of up to 3; missing values last',
  anyOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }],
};

/**
 * Tools of the Documents capability, on the agent's own documents only. They run as the
 * AgentSelf principal; the record service's policy confines them to that agent.
 */
export function documentTools(
  records: RecordService,
  self: Extract<Principal, { kind: 'agentSelf' }>,
): ToolDefinition[] {
  const a = self.agentId;
  const asJson = (v: unknown) => JSON.parse(JSON.stringify(v)) as Json;
  return [
    {
      name: 'list_documents',
      description: "List this agent's documents (id, name, kind, fields).",
      inputSchema: { type: 'object', properties: {} },
      execute: async () =>
        asJson(
          (await records.listDocuments(self, a)).map((d) => ({
            id: d.id,
            name: d.name,
            description: d.description,
            kind: d.kind,
            fields: d.fields,
          })),
        ),
    },
    {
      name: 'read_document',
      description: 'Read a document: its content, and for a database its fields and first records.',
      inputSchema: {
        type: 'object',
        properties: {
          documentId: docId,
          limit: { type: 'integer', minimum: 1, maximum: 1000 },
          offset: { type: 'integer', minimum: 0 },
        },
        required: ['documentId'],
      },
      execute: async (args) =>
        asJson(
          await records.read(self, a, String(args.documentId), 'agent', { limit: args.limit, offset: args.offset }),
        ),
    },
    {
      name: 'query_records',
      description:
        'Find records of a database document by field values or comparisons, sorted, a page at a time (pass nextCursor back as cursor for the next page).',
      inputSchema: {
        type: 'object',
        properties: {
          documentId: docId,
          filter,
          sort,
          limit: { type: 'integer', minimum: 1, maximum: 1000 },
          offset: { type: 'integer', minimum: 0 },
          cursor: { type: 'string' },
        },
        required: ['documentId'],
      },
      execute: async (args) =>
        asJson(
          await records.query(self, a, String(args.documentId), 'agent', {
            filter: args.filter,
            sort: args.sort,
            limit: args.limit,
            offset: args.offset,
            cursor: args.cursor,
          }),
        ),
    },
    {
      name: 'insert_records',
      description: 'Insert records into a database document (all or nothing).',
      inputSchema: {
        type: 'object',
        properties: { documentId: docId, items: { type: 'array', items: { type: 'object' } } },
        required: ['documentId', 'items'],
      },
      execute: async (args) => asJson(await records.insert(self, a, String(args.documentId), 'agent', args.items)),
    },
    {
      name: 'update_records',
      description: 'Set fields on the records matching a filter.',
      inputSchema: {
        type: 'object',
        properties: { documentId: docId, filter, set: { type: 'object' }, all: { type: 'boolean' } },
        required: ['documentId', 'filter', 'set'],
      },
      execute: async (args) =>
        asJson(
          await records.update(self, a, String(args.documentId), 'agent', {
            filter: args.filter,
            set: args.set,
            all: args.all,
          }),
        ),
    },
    {
      name: 'delete_records',
      description: 'Delete the records matching a filter (an empty filter needs all: true).',
      inputSchema: {
        type: 'object',
        properties: { documentId: docId, filter, all: { type: 'boolean' } },
        required: ['documentId', 'filter'],
      },
      execute: async (args) =>
        asJson(await records.delete(self, a, String(args.documentId), 'agent', { filter: args.filter, all: args.all })),
    },
  ];
}
