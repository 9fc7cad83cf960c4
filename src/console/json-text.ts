// JSON typed by a person in the code editor: parsed before it is sent, a mistake reported at its
// line and column (as the editor marks it), and only a JSON object accepted where one is expected.

export type ParsedObject =
  { ok: true; value: Record<string, unknown> } | { ok: false; message: string; line?: number; column?: number };

/** The 1-based line and column of a character offset in a text. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** Parses `text` as a JSON object; an empty text is `{}`. */
export function parseJsonObject(text: string): ParsedObject {
  if (!text.trim()) return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // V8 says where: "… (line 2 column 5)" in newer versions, "… at position 17" in all.
    const lc = /line (\d+) column (\d+)/.exec(message);
    const pos = /position (\d+)/.exec(message);
    const at = lc ? { line: Number(lc[1]), column: Number(lc[2]) } : pos ? lineColumnAt(text, Number(pos[1])) : {};
    const clean = message
      .replace(/^JSON\.parse: /, '')
      .replace(/ in JSON at position \d+.*$/, '')
      .replace(/ \(line \d+ column \d+\)$/, '');
    return { ok: false, message: `Not valid JSON: ${clean}`, ...at };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, message: 'Must be a JSON object ({ … })', line: 1, column: 1 };
  return { ok: true, value: value as Record<string, unknown> };
}

/** An object as the editor shows it. */
export function editorText(value: unknown): string {
  return JSON.stringify(value ?? {}, null, 2);
}
