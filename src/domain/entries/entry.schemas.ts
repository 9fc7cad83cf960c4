import { z } from 'zod';
import { Invalid } from '../errors.js';
import { HTTP_METHODS, SIGNATURE_SCHEMES, type Handler } from './entry.entities.js';
import { schemaRefusal } from '../json-schema.js';
import { modelRef, optionalText } from '../validation.js';
import { MAX_WEBHOOK_BODY_BYTES } from './body-limit.js';

/** The longest prompt or script of a handler, in characters. */
export const MAX_HANDLER = 200_000;

/** `{prompt}` or `{script}`: exactly one, non-empty. */
export const handlerInput = z
  .object({
    prompt: z.string().max(MAX_HANDLER).nullable().optional(),
    script: z.string().max(MAX_HANDLER).nullable().optional(),
  })
  .superRefine((h, ctx) => {
    const given = [h.prompt, h.script].filter((v) => v != null);
    if (given.length !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of prompt or script' });
    else if (!given[0]!.trim())
      ctx.addIssue({ code: 'custom', message: 'must not be empty', path: [h.prompt != null ? 'prompt' : 'script'] });
  })
  .transform((h): Handler =>
    h.prompt != null ? { kind: 'prompt', body: h.prompt } : { kind: 'script', body: h.script! },
  );

const SEGMENT = /^[A-Za-z0-9._~-]+$/;
const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]{0,63})\}$/;

/**
 * An HTTP API path relative to `/agents/{id}/api/`: segments of letters, digits and `. _ ~ -`, or
 * `{name}` captures; leading and trailing slashes are dropped. Returns the normalised path.
 */
export const endpointPath = z
  .string()
  .max(500, 'must be at most 500 characters')
  .transform((p) => p.trim().replace(/^\/+|\/+$/g, ''))
  .superRefine((p, ctx) => {
    if (!p) return void ctx.addIssue({ code: 'custom', message: 'must not be empty' });
    const segments = p.split('/');
    if (segments.length > 20) return void ctx.addIssue({ code: 'custom', message: 'may have at most 20 segments' });
    const names = new Set<string>();
    for (const s of segments) {
      const param = PARAM.exec(s);
      if (param) {
        if (names.has(param[1]!))
          return void ctx.addIssue({ code: 'custom', message: `parameter {${param[1]}} appears twice` });
        names.add(param[1]!);
      } else if (!SEGMENT.test(s) || s === '.' || s === '..') {
        return void ctx.addIssue({
          code: 'custom',
          message: `segment '${s}' is not allowed: use letters, digits, . _ ~ - or a {name} parameter, separated by single slashes`,
        });
      }
    }
  });

/** The path with parameter names erased: two paths with the same shape would match the same requests. */
export function pathShape(path: string): string {
  return path
    .split('/')
    .map((s) => (PARAM.test(s) ? '{}' : s))
    .join('/');
}

export const methodsInput = z
  .array(z.enum(HTTP_METHODS))
  .min(1, 'give at least one method')
  .transform((m) => [...new Set(m)]);

/**
 * A JSON Schema (2020-12) of any JSON value: an HTTP endpoint's request body or output. Refused when
 * the validator cannot use it, as for tool schemas.
 */
export const valueSchema = z
  .record(z.string(), z.unknown())
  .refine((s) => JSON.stringify(s).length <= 65_536, 'must be at most 64 KiB')
  .superRefine((s, ctx) => {
    const refusal = schemaRefusal(s);
    if (refusal) ctx.addIssue({ code: 'custom', message: `is not a usable JSON Schema: ${refusal}` });
  });

export const httpEndpointInput = z.object({
  path: endpointPath,
  methods: methodsInput.default(['POST']),
  handler: handlerInput,
  modelOverride: modelRef.nullable().optional(),
  description: optionalText(2000).default(''),
  inputSchema: valueSchema.nullable().optional(),
  outputSchema: valueSchema.nullable().optional(),
});
export const httpEndpointPatch = z.object({
  path: endpointPath.optional(),
  methods: methodsInput.optional(),
  handler: handlerInput.optional(),
  modelOverride: modelRef.nullable().optional(),
  description: optionalText(2000).optional(),
  inputSchema: valueSchema.nullable().optional(),
  outputSchema: valueSchema.nullable().optional(),
});

export const TOOL_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const toolName = z.string().regex(TOOL_NAME, 'must match ^[A-Za-z0-9._-]{1,64}$');

/**
 * A JSON Schema (2020-12) for an object: tool arguments or a tool's structured result (MCP requires
 * `type: "object"` for both). Refused when the validator cannot use it (an unknown type, a pattern
 * the linear-time engine cannot run, a reference to another document).
 */
export const objectSchema = z
  .record(z.string(), z.unknown())
  .refine((s) => s.type === 'object', 'must be a JSON Schema with "type": "object"')
  .refine(
    (s) =>
      s.properties === undefined ||
      (typeof s.properties === 'object' && s.properties !== null && !Array.isArray(s.properties)),
    'properties must be an object',
  )
  .refine((s) => JSON.stringify(s).length <= 65_536, 'must be at most 64 KiB')
  .superRefine((s, ctx) => {
    const refusal = schemaRefusal(s);
    if (refusal) ctx.addIssue({ code: 'custom', message: `is not a usable JSON Schema: ${refusal}` });
  });

export const DEFAULT_TOOL_SCHEMA = {
  type: 'object',
  properties: { input: { type: 'string', description: 'What to do or ask' } },
  required: ['input'],
};

export const mcpToolInput = z.object({
  name: toolName,
  description: z.string().trim().min(1, 'must not be empty').max(4000),
  handler: handlerInput,
  modelOverride: modelRef.nullable().optional(),
  inputSchema: objectSchema.nullable().optional(),
  outputSchema: objectSchema.nullable().optional(),
});
export const mcpToolPatch = z.object({
  name: toolName.optional(),
  description: z.string().trim().min(1, 'must not be empty').max(4000).optional(),
  handler: handlerInput.optional(),
  modelOverride: modelRef.nullable().optional(),
  inputSchema: objectSchema.nullable().optional(),
  outputSchema: objectSchema.nullable().optional(),
});

export const INTEGRATION_NAME = /^[A-Za-z0-9._~-]{1,100}$/;
const integrationName = z
  .string()
  .regex(INTEGRATION_NAME, 'must be URL-safe: letters, digits and . _ ~ - (1 to 100 characters)')
  .refine((n) => n !== '.' && n !== '..', 'must not be . or ..');

export const signatureInput = z.object({
  scheme: z.enum(SIGNATURE_SCHEMES).default('HMAC_SHA256'),
  secretName: z.string().min(1).max(200),
});

const bodyBytesMessage = `must be a whole number of bytes from 1 to ${MAX_WEBHOOK_BODY_BYTES} (1 MiB)`;
/** The largest body the integration accepts; null: 64 KiB without a signature check, 1 MiB with one. */
const maxBodyBytes = z
  .number()
  .int(bodyBytesMessage)
  .min(1, bodyBytesMessage)
  .max(MAX_WEBHOOK_BODY_BYTES, bodyBytesMessage);
/** What `maxBodyBytes` means, as the agent's tools and the GraphQL inputs describe it. */
export const MAX_BODY_BYTES_DESCRIPTION =
  `The largest body the integration accepts, in bytes (1 to ${MAX_WEBHOOK_BODY_BYTES}); larger ones are refused with 413. ` +
  'Null: 65536 (64 KiB) without a signature check, 1048576 (1 MiB) with one.';

export const webhookInput = z.object({
  integration: integrationName,
  handler: handlerInput,
  modelOverride: modelRef.nullable().optional(),
  signature: signatureInput.nullable().optional(),
  maxBodyBytes: maxBodyBytes.nullable().optional(),
});
export const webhookPatch = z.object({
  integration: integrationName.optional(),
  handler: handlerInput.optional(),
  modelOverride: modelRef.nullable().optional(),
  signature: signatureInput.nullable().optional(),
  maxBodyBytes: maxBodyBytes.nullable().optional(),
});

/** A model override only makes sense for a prompt handler (scripts never call the model). */
export function checkModelOverride(handler: Handler, modelOverride: string | null): void {
  if (handler.kind === 'script' && modelOverride) {
    throw new Invalid(
      'modelOverride: a script handler never calls a model; remove the override or use a prompt',
      'modelOverride',
    );
  }
}
