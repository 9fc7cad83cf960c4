import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import type { Json, ScriptHost } from '../../domain/runtime/ports.js';
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

/**
 * How deeply a value a script passes out (host-call arguments, its return value) may nest. Far
 * deeper values would be parsed, cloned to the server thread and serialised again by recursive
 * host code with a much smaller stack than the worker's — where they overflow it.
 */
export const MAX_VALUE_DEPTH = 64;

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether the JSON text nests arrays/objects deeper than `max` levels (a scalar is level 0). Reads
 * the text without parsing it, so any depth costs one linear pass and no stack.
 */
export function nestsDeeperThan(json: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return false;
}

type Options = Record<string, Json>;

/** Optional trailing options argument: absent/null → undefined; otherwise a plain object. */
function options(op: DocumentOp, value: Json | undefined, types: Record<string, 'number' | 'boolean'>): Options | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new TypeError(`documents.${op}: options must be an object`);
  for (const [key, type] of Object.entries(types)) {
    const v = value[key];
    if (v !== undefined && v !== null && typeof v !== type) throw new TypeError(`documents.${op}: options.${key} must be a ${type}`);
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
  if (typeof documentId !== 'string') throw new TypeError(`documents.${op}: the first argument must be a document id (string)`);
  switch (op) {
    case 'query':
      return host.documents.query(documentId, a ?? undefined, options(op, b, { limit: 'number', offset: 'number' }) as { limit?: number; offset?: number } | undefined);
    case 'insert':
      return host.documents.insert(documentId, a ?? null);
    case 'update':
      return host.documents.update(documentId, a ?? null, b ?? null);
    case 'delete':
      return host.documents.delete(documentId, a ?? null, options(op, b, { all: 'boolean' }) as { all?: boolean } | undefined);
  }
}
