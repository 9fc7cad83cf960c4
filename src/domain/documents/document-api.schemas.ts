import { z } from 'zod';
import { MAX_CONTAINS_LENGTH, MAX_SORT_KEYS, OPERATOR_DOCS } from './record-filter.js';
import { MAX_FILTER_FIELDS, MAX_FILTER_VALUES } from './records.js';

// Request bodies of the Document API. These schemas validate the requests and generate the
// OpenAPI description (src/rest/openapi.ts), so the two cannot drift apart.

// The filter is checked against the document's field schema by record-filter.ts (which gives the
// 400 naming a bad field or operator); these schemas describe it and let anything through to it.
const scalar = z.union([z.string(), z.number(), z.boolean()]);
const operators = z
  .object({
    eq: z.unknown().optional().describe(OPERATOR_DOCS.eq.description),
    ne: z.unknown().optional().describe(OPERATOR_DOCS.ne.description),
    gt: z.union([z.number(), z.string()]).optional().describe(OPERATOR_DOCS.gt.description),
    gte: z.union([z.number(), z.string()]).optional().describe(OPERATOR_DOCS.gte.description),
    lt: z.union([z.number(), z.string()]).optional().describe(OPERATOR_DOCS.lt.description),
    lte: z.union([z.number(), z.string()]).optional().describe(OPERATOR_DOCS.lte.description),
    in: z.array(z.unknown()).optional().describe(OPERATOR_DOCS.in.description),
    contains: z.string().max(MAX_CONTAINS_LENGTH).optional().describe(OPERATOR_DOCS.contains.description),
    exists: z.boolean().optional().describe(OPERATOR_DOCS.exists.description),
  })
  .describe("Operators on one field, all of which must hold; checked against the field's type");
const fieldCondition = z
  .union([scalar, z.array(z.unknown()), operators, z.unknown()])
  .describe('A value (equality), a list (any of), or an object of operators');
export const recordFilter = z.record(z.string(), fieldCondition).describe(
  `Field name (or \`id\`) → condition; every field's condition must hold. A value means equality, a list any of, an object operators ` +
    `(${Object.entries(OPERATOR_DOCS)
      .map(([op, d]) => `\`${op}\`: ${JSON.stringify(d.example)}`)
      .join('; ')}). ` +
    `An unknown field or operator, or an operand of the wrong type, is a 400 naming it. At most ${MAX_FILTER_FIELDS} fields and ${MAX_FILTER_VALUES} values in all (a list counts its entries).`,
);
const sortKey = z.object({ field: z.string(), direction: z.enum(['asc', 'desc']).optional().describe('Default asc') });
export const recordSort = z
  .union([sortKey, z.array(sortKey).min(1).max(MAX_SORT_KEYS)])
  .describe(
    `Order of the records: one key or up to ${MAX_SORT_KEYS} (string, number, datetime or boolean fields); missing values come last in both directions, ties in insertion order. Default: insertion order.`,
  );
export const recordItem = z
  .record(z.string(), z.unknown())
  .describe('A record: field name → value, validated against the field schema');

export const readQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('Records to return for a database (default 100, at most 1000)'),
  offset: z.coerce.number().int().min(0).optional().describe('Records to skip'),
});

export const writeDocumentBody = z
  .object({
    content: z
      .string()
      .max(5 * 1024 * 1024)
      .optional(),
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(2000).optional(),
  })
  .strict();

export const queryBody = z
  .object({
    filter: recordFilter.optional(),
    sort: z.unknown().optional(),
    limit: z.number().int().min(1).max(1000).optional().describe('Records per page (default 100, at most 1000)'),
    offset: z.number().int().min(0).optional().describe('Records to skip (not with cursor)'),
    cursor: z
      .string()
      .optional()
      .describe("The previous page's nextCursor: the page after it, stable while records are added"),
  })
  .strict();
/** The query body as the OpenAPI file describes it (validation leaves sort to validateSort). */
export const queryBodyDoc = queryBody.extend({ sort: recordSort.optional() });

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
export const fieldDef = z.object({
  name: z.string(),
  type: z.enum(['string', 'number', 'boolean', 'datetime', 'json']),
  required: z.boolean(),
});
export const documentResponse = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  kind: z.enum(['TEXT', 'DATABASE']),
  content: z.string(),
  data: z
    .object({ fields: z.array(fieldDef), records: z.array(storedRecord), totalCount: z.number().int() })
    .optional(),
});
export const queryResponse = z.object({
  records: z.array(storedRecord),
  totalCount: z.number().int().describe('Records matching the filter in all'),
  nextCursor: z.string().nullable().describe('Send as cursor for the next page; null on the last page'),
});
export const insertResponse = z.object({ inserted: z.number().int(), records: z.array(storedRecord) });
export const updateResponse = z.object({ updated: z.number().int() });
export const deleteResponse = z.object({ deleted: z.number().int() });
