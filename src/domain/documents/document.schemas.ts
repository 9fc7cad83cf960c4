import { z } from 'zod';
import { FIELD_TYPES } from './document.entities.js';
import { nonEmpty, optionalText } from '../validation.js';

// Inputs of documents and their exposure: what createDocument, updateDocument and exposeDocument
// take, and what an agent manifest's documents are checked with (domain/manifests).

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const fieldsInput = z
  .array(
    z.object({
      name: z
        .string()
        .regex(FIELD_NAME, 'must start with a letter or _ and contain only letters, digits and _ (max 64)'),
      type: z.enum(FIELD_TYPES),
      required: z.boolean().default(false),
    }),
  )
  .max(200)
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    fields.forEach((f, i) => {
      if (f.name === 'id')
        ctx.addIssue({ code: 'custom', message: "'id' is reserved for the record id", path: [i, 'name'] });
      // A JSON key `__proto__` sets the prototype in most JavaScript clients instead of holding a
      // value, and parsers drop or refuse it: such a field could not be read back reliably.
      if (f.name === '__proto__')
        ctx.addIssue({
          code: 'custom',
          message: "'__proto__' cannot be a field name: JavaScript clients could not hold it as a value",
          path: [i, 'name'],
        });
      if (seen.has(f.name))
        ctx.addIssue({ code: 'custom', message: `field '${f.name}' appears twice`, path: [i, 'name'] });
      seen.add(f.name);
    });
  });

export const MAX_CONTENT = 5 * 1024 * 1024;
export const documentInput = z.object({
  name: nonEmpty(200),
  description: optionalText(2000).default(''),
  kind: z.enum(['TEXT', 'DATABASE']).default('TEXT'),
  content: optionalText(MAX_CONTENT).default(''),
  fields: fieldsInput.default([]),
});
export const documentPatch = z.object({
  name: nonEmpty(200).optional(),
  description: optionalText(2000).optional(),
  content: optionalText(MAX_CONTENT).optional(),
  fields: fieldsInput.optional(),
});
/** An exposure must open the document somewhere: on the Document API, the MCP server, or both. */
export const EXPOSURE_EMPTY = 'give read, write, mcp or several of them';
const permissions = { read: z.boolean().default(true), write: z.boolean().default(false) };
/** A whole exposure (an agent manifest's): `mcp` absent means off. */
export const exposureInput = z
  .object({ ...permissions, mcp: z.boolean().default(false) })
  .refine((e) => e.read || e.write || e.mcp, EXPOSURE_EMPTY);
/** A change of exposure (exposeDocument): `mcp` absent keeps what the exposure had (off for a new one). */
export const exposureChange = z.object({ ...permissions, mcp: z.boolean().optional() });
