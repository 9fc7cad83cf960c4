import { z } from 'zod';
import { MAX_FILTER_FIELDS, MAX_FILTER_VALUES } from './records.js';

// Request bodies of the Document API. These schemas validate the requests and generate the
// OpenAPI description (src/rest/openapi.ts), so the two cannot drift apart.

const fieldValue = z.unknown().describe('A field value; for a filter, a list means any of');
export const recordFilter = z
  .record(z.string(), fieldValue)
  .describe(
    `Field name → wanted value (equality); a list means any of. \`id\` matches record ids. At most ${MAX_FILTER_FIELDS} fields and ${MAX_FILTER_VALUES} values in all (a single value counts as one).`,
  );
export const recordItem = z.record(z.string(), z.unknown()).describe('A record: field name → value, validated against the field schema');

export const readQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('Records to return for a database (default 100, at most 1000)'),
  offset: z.coerce.number().int().min(0).optional().describe('Records to skip'),
});

export const writeDocumentBody = z
  .object({
    content: z.string().max(5 * 1024 * 1024).optional(),
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(2000).optional(),
  })
  .strict();

export const queryBody = z
  .object({
    filter: recordFilter.optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    offset: z.number().int().min(0).optional(),
  })
  .strict();

export const insertBody = z.object({ items: z.array(recordItem).min(1).max(1000) }).strict();

export const updateBody = z
  .object({
    filter: recordFilter,
    set: recordItem,
    all: z.boolean().optional().describe('Required (true) to update every record with an empty filter'),
  })
  .strict();

export const deleteBody = z
  .object({
    filter: recordFilter,
    all: z.boolean().optional().describe('Required (true) to delete every record with an empty filter'),
  })
  .strict();

// Responses, for the OpenAPI description.
const storedRecord = z.object({ id: z.string() }).catchall(z.unknown());
export const fieldDef = z.object({ name: z.string(), type: z.enum(['string', 'number', 'boolean', 'datetime', 'json']), required: z.boolean() });
export const documentResponse = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  kind: z.enum(['TEXT', 'DATABASE']),
  content: z.string(),
  data: z.object({ fields: z.array(fieldDef), records: z.array(storedRecord), totalCount: z.number().int() }).optional(),
});
export const queryResponse = z.object({ records: z.array(storedRecord), totalCount: z.number().int() });
export const insertResponse = z.object({ inserted: z.number().int(), records: z.array(storedRecord) });
export const updateResponse = z.object({ updated: z.number().int() });
export const deleteResponse = z.object({ deleted: z.number().int() });
