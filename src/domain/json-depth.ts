// How deep JSON that crosses a boundary of the service may nest: surface bodies coming in, script
// output going out.

/**
 * Levels of arrays and objects a surface body or a script's output may nest. Node's JSON.stringify
 * and structured clone recurse on the native stack and throw a RangeError a few thousand levels
 * down (fewer when the stack is already in use), and the embedded database slows quadratically on
 * deep jsonb: deeper values are refused before anything stringifies, runs or stores them.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects more than `limit` levels deep (brackets inside strings
 * do not count). A loop over the text, so no depth of input can exhaust the stack measuring it.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character (an escaped quote stays inside)
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
