// The JavaScript evaluated inside every fresh QuickJS context before the user's script. It builds
// the script's scope (`input`, `request`, `documents`, `log`) from two raw host functions and
// JSON strings, so only strings ever cross the boundary and no host object is reachable.

/** Longest log line and longest error message kept, in UTF-16 code units. */
export const MAX_LOG_LINE_CHARS = 2_000;
/** Log lines kept per run; later `log(...)` calls are dropped. */
export const MAX_LOG_LINES = 100;
/** Longest error message reported for a failed script. */
export const MAX_ERROR_CHARS = 2_000;

/** The four `documents.*` operations a script may call; anything else is refused host-side. */
export const DOCUMENT_OPS = ['query', 'insert', 'update', 'delete'] as const;
export type DocumentOp = (typeof DOCUMENT_OPS)[number];

/**
 * Evaluates to `{ start, describe, stringify }`, an object only the host holds a handle to.
 *
 * - `start(hostCall, hostLog, inputJson, requestJson, source)` compiles `source` with the
 *   AsyncFunction constructor (so it is exactly a function body: it cannot close the wrapper or see
 *   the prelude's closure) and returns the promise of its call.
 * - `describe(thrown)` renders a thrown value as `Name: message`, capped, never throwing.
 * - `stringify` is the original `JSON.stringify`, captured before user code can replace it.
 *
 * Strict mode keeps `caller`/`arguments` from leaking the raw host functions; the originals of
 * every builtin used later are captured up front so a script that tampers with prototypes only
 * breaks itself.
 */
export const PRELUDE = `(() => {
  'use strict';
  const { parse, stringify } = JSON;
  const { apply } = Reflect;
  const { freeze } = Object;
  const toStr = String;
  const strSlice = String.prototype.slice;
  const arrJoin = Array.prototype.join;
  const arrMap = Array.prototype.map;
  const AsyncFunction = (async function () {}).constructor;
  const cap = (s, n) => (s.length > n ? apply(strSlice, s, [0, n]) : s);

  const show = (v) => {
    if (typeof v === 'string') return v;
    try {
      const s = stringify(v);
      if (typeof s === 'string') return s;
    } catch {}
    try { return toStr(v); } catch { return '[unprintable]'; }
  };

  const describe = (e) => {
    try {
      let text;
      if ((typeof e === 'object' && e !== null) || typeof e === 'function') {
        const name = e.name;
        const message = e.message;
        const label = typeof name === 'string' && name !== '' ? name : 'Error';
        text = label + ': ' + (message === undefined ? show(e) : toStr(message));
      } else {
        text = 'Error: ' + show(e);
      }
      return cap(text, ${MAX_ERROR_CHARS});
    } catch {
      return 'Error: (unprintable thrown value)';
    }
  };

  const start = (hostCall, hostLog, inputJson, requestJson, source) => {
    const body = AsyncFunction('input', 'request', 'documents', 'log', source);
    const op = (name) => async function (...args) {
      return parse(await hostCall(name, stringify(args)));
    };
    const documents = freeze({
      query: op('query'), insert: op('insert'), update: op('update'), delete: op('delete'),
    });
    let lines = 0;
    const log = (...args) => {
      if (lines >= ${MAX_LOG_LINES}) return;
      lines++;
      hostLog(cap(apply(arrJoin, apply(arrMap, args, [show]), [' ']), ${MAX_LOG_LINE_CHARS}));
    };
    return body(parse(inputJson), parse(requestJson), documents, freeze(log));
  };

  return { start, describe, stringify };
})()`;
