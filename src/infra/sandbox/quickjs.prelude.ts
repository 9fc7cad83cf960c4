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
 * Lines the AsyncFunction constructor puts before the script's first line
 * (`(async function anonymous(input,request,documents,log` and `) {`): QuickJS reports positions in
 * that generated source, the user wrote only the body.
 */
export const SCRIPT_LINE_OFFSET = 2;

/**
 * Evaluates to `{ start, stringify, originals }`, an object only the host holds a handle to.
 *
 * - `start(documents, log, inputJson, requestJson, source, compileOnly)` compiles `source` with
 *   the AsyncFunction constructor (a function body: it cannot see the prelude's closure) and
 *   returns the promise of its call with `documents` and `log` (made by SCOPE, or undefined when
 *   the script cannot reach them, see `reachesScope`) — or null without calling it when
 *   `compileOnly` is true. A body that closes the generated function early (an unmatched `}`
 *   followed by more code) is refused as a SyntaxError: the constructor only pastes the body
 *   between `{` and `}`, so such a body would be a different program than the one the user saved.
 * - `stringify` is the original `JSON.stringify`, captured before user code can replace it.
 * - `originals` holds the builtins SCOPE and DIAGNOSTICS need, captured here for the same reason.
 *
 * Strict mode keeps `caller`/`arguments` from leaking the raw host functions; the originals of
 * every builtin used later are captured up front so a script that tampers with prototypes only
 * breaks itself. Every run evaluates this, so it holds only what every run needs: compiling it is
 * most of what a short script costs.
 */
export const PRELUDE = `(() => {
  'use strict';
  const { parse, stringify } = JSON;
  const { apply } = Reflect;
  const AsyncFunction = (async function () {}).constructor;
  const OrigSyntaxError = SyntaxError;
  const fnToString = Function.prototype.toString;
  const originals = Object.freeze({
    apply, parse, stringify, freeze: Object.freeze, toStr: String, strSlice: String.prototype.slice,
    arrJoin: Array.prototype.join, arrMap: Array.prototype.map, OrigError: Error, reExec: RegExp.prototype.exec,
  });
  const start = (documents, log, inputJson, requestJson, source, compileOnly) => {
    const body = AsyncFunction('input', 'request', 'documents', 'log', source);
    if (typeof body !== 'function' || apply(fnToString, body, []) !== 'async function anonymous(input,request,documents,log\\n) {\\n' + source + '\\n}') {
      throw new OrigSyntaxError("unmatched '}': the script closes the function it runs in");
    }
    if (compileOnly) return null;
    return body(parse(inputJson), parse(requestJson), documents, log);
  };
  return { start, stringify, originals };
})()`;

/** `cap` and `show` of SCOPE and DIAGNOSTICS, on the prelude's `originals` only. */
const HELPERS = `const cap = (s, n) => (s.length > n ? apply(strSlice, s, [0, n]) : s);
  const show = (v) => {
    if (typeof v === 'string') return v;
    try {
      const s = stringify(v);
      if (typeof s === 'string') return s;
    } catch {}
    try { return toStr(v); } catch { return '[unprintable]'; }
  };`;

/**
 * Evaluates to a function of the prelude's `originals` and the two raw host functions that returns
 * `[documents, log]`, the script's two scope objects that reach the host. Evaluated before the
 * script starts (so its originals are still the built-ins' own), and only for a script that can
 * reach them (see `reachesScope`).
 */
export const SCOPE = `((originals, hostCall, hostLog) => {
  'use strict';
  const { apply, parse, stringify, freeze, toStr, strSlice, arrJoin, arrMap } = originals;
  ${HELPERS}
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
  return [documents, freeze(log)];
})`;

/**
 * Whether a script's source can reach its `documents` or `log` parameter: by naming it, through
 * `arguments`, through a direct `eval` (which can name anything), or with an escape in an
 * identifier (`\\u0064ocuments`). Nothing else in a function body sees its parameters (the
 * Function constructors and indirect eval compile in the global scope), so a script for which this
 * is false runs the same with both left undefined — and its context skips compiling SCOPE.
 */
export function reachesScope(source: string): boolean {
  return /documents|log|arguments|eval|\\/.test(source);
}

/**
 * Evaluates to a function of the prelude's `originals` that returns `{ describe, locate }`; it is
 * evaluated only when a run fails, and uses nothing but those originals (a script may have
 * replaced any global by then).
 *
 * - `describe(thrown)` renders a thrown value as `Name: message`, capped, never throwing.
 * - `locate(thrown)` is `"line:column"` in the script of the innermost script frame of an Error's
 *   stack (QuickJS names the constructor's source `<input>`), or `""`.
 */
export const DIAGNOSTICS = `((originals) => {
  'use strict';
  const { apply, stringify, toStr, strSlice, OrigError, reExec } = originals;
  ${HELPERS}
  const SCRIPT_FRAME = /<input>:(\\d+):(\\d+)/;

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

  const locate = (e) => {
    try {
      if (!(e instanceof OrigError)) return '';
      const stack = e.stack;
      if (typeof stack !== 'string') return '';
      const m = apply(reExec, SCRIPT_FRAME, [apply(strSlice, stack, [0, 4000])]);
      if (!m) return '';
      const line = +m[1] - ${SCRIPT_LINE_OFFSET};
      return line >= 1 ? line + ':' + m[2] : '';
    } catch {
      return '';
    }
  };

  return { describe, locate };
})`;
