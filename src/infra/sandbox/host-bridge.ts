import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import type { Json } from '../../domain/json.js';
import type { QueryOptions, ScriptHost } from '../../domain/core/sandbox.ports.js';
import type { DocumentOp } from './quickjs.prelude.js';

/**
 * Copies a VM string out, but only after checking its length inside the VM, so a script cannot
 * make the host copy an arbitrarily large string. `undefined`: not a string; `null`: too long.
 */
export function readString(ctx: QuickJSContext, handle: QuickJSHandle, maxChars: number): string | null | undefined {
  if (ctx.typeof(handle) !== 'string') return undefined;
  // (context.getLength only answers for objects, so read the property of the primitive.)
  const lengthHandle = ctx.getProp(handle, 'length');
  const length = ctx.getNumber(lengthHandle);
  lengthHandle.dispose();
  if (!(length <= maxChars)) return null;
  return ctx.getString(handle);
}

type Options = Record<string, Json>;

/** Optional trailing options argument: absent/null → undefined; otherwise a plain object. */
function options(
  op: DocumentOp,
  value: Json | undefined,
  types: Record<string, 'number' | 'boolean' | 'string' | 'any'>,
): Options | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new TypeError(`documents.${op}: options must be an object`);
  for (const [key, type] of Object.entries(types)) {
    const v = value[key];
    if (v !== undefined && v !== null && type !== 'any' && typeof v !== type)
      throw new TypeError(`documents.${op}: options.${key} must be a ${type}`);
  }
  return value;
}

/**
 * Calls the host's `documents.<op>` with arguments that crossed the VM boundary as a JSON array.
 * JSON turns `undefined` into `null`, so a null optional argument is passed on as absent. Only
 * shapes are checked here; the host enforces what the agent may touch.
 */
export async function invokeHost(host: ScriptHost, op: DocumentOp, args: Json[]): Promise<Json> {
  if (!Array.isArray(args)) throw new TypeError(`documents.${op}: malformed arguments`);
  const [documentId, a, b] = args;
  if (typeof documentId !== 'string')
    throw new TypeError(`documents.${op}: the first argument must be a document id (string)`);
  switch (op) {
    case 'query':
      return host.documents.query(
        documentId,
        a ?? undefined,
        options(op, b, { limit: 'number', offset: 'number', sort: 'any', cursor: 'string' }) as
          QueryOptions | undefined,
      );
    case 'insert':
      return host.documents.insert(documentId, a ?? null);
    case 'update':
      return host.documents.update(documentId, a ?? null, b ?? null);
    case 'delete':
      return host.documents.delete(
        documentId,
        a ?? null,
        options(op, b, { all: 'boolean' }) as { all?: boolean } | undefined,
      );
  }
}
