import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Document,
  type Node,
  type Pair,
} from 'yaml';

// YAML text with its positions: each document's value, and the line and column of any path into
// it, so that an error found in the value (by zod, or by a later check) points into the file.

/** 1-based line and column in the manifest text. */
export interface Position {
  line: number;
  column: number;
}

/** A path into a YAML document's value: object keys and array indices. */
export type ValuePath = readonly (string | number)[];

/** Aliases one document may expand (a "billion laughs" file is refused, not expanded). */
const MAX_ALIASES = 100;

export interface SourceProblem {
  message: string;
  position: Position;
}

/** One document of a YAML stream: its value and where each part of it is written. */
export class YamlDocument {
  constructor(
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
    private readonly text: string,
    readonly value: unknown,
    /** 0-based index of the document in the stream. */
    readonly index: number,
  ) {}

  /** Where the document starts. */
  start(): Position {
    return this.at(this.doc.contents?.range?.[0] ?? this.doc.range[0]);
  }

  /**
   * Where the value at `path` is written; for a path that does not exist (a missing field), where
   * its closest existing parent is.
   */
  locate(path: ValuePath): Position {
    return this.at(this.nodeAt(path).range?.[0] ?? 0);
  }

  /** Where the key `key` of the mapping at `path` is written (an unknown field), else where the mapping is. */
  locateKey(path: ValuePath, key: string): Position {
    const node = this.nodeAt(path);
    if (isMap(node)) {
      const pair = node.items.find((p) => keyOf(p) === key);
      const k = pair?.key as Node | undefined;
      if (k?.range) return this.at(k.range[0]);
    }
    return this.at(node.range?.[0] ?? 0);
  }

  /**
   * The position in the file of line `line`, column `column` (1-based) of the string written at
   * `path` — a script's syntax error. Exact for block scalars (`|`, `>` keep lines) and one-line
   * scalars; otherwise the string's own position.
   */
  locateInside(path: ValuePath, line: number, column: number): Position {
    const node = this.nodeAt(path);
    const start = node.range?.[0];
    if (start === undefined || !isScalar(node)) return this.locate(path);
    const at = this.at(start);
    if (node.type === 'BLOCK_LITERAL') {
      const indent = this.blockIndent(start);
      return indent === undefined ? at : { line: at.line + line, column: indent + column };
    }
    if (line === 1) return { line: at.line, column: at.column + column - 1 + (node.type === 'PLAIN' ? 0 : 1) };
    return at;
  }

  private blockIndent(headerOffset: number): number | undefined {
    const lineEnd = this.text.indexOf('\n', headerOffset);
    if (lineEnd < 0) return undefined;
    // The first content line that is not blank sets the indentation.
    const rest = this.text.slice(lineEnd + 1).split('\n');
    for (const l of rest) {
      if (l.trim() === '') continue;
      return l.length - l.trimStart().length;
    }
    return undefined;
  }

  private nodeAt(path: ValuePath): Node {
    let node = this.doc.contents as Node | null;
    let deepest: Node = node ?? (this.doc as unknown as Node);
    for (const seg of path) {
      if (isMap(node)) {
        const pair: Pair | undefined = node.items.find((p) => keyOf(p) === String(seg));
        node = (pair?.value as Node | null | undefined) ?? null;
        if (!node && pair?.key) return pair.key as Node;
      } else if (isSeq(node) && typeof seg === 'number') {
        node = (node.items[seg] as Node | undefined) ?? null;
      } else node = null;
      if (!node) return deepest;
      deepest = node;
    }
    return deepest;
  }

  private at(offset: number): Position {
    const p = this.lines.linePos(offset);
    return { line: p.line, column: p.col };
  }
}

function keyOf(p: unknown): string | undefined {
  if (!isPair(p)) return undefined;
  const k = p.key;
  if (isScalar(k)) return String(k.value);
  return k == null ? undefined : String(k);
}

/**
 * Parses a YAML stream (documents separated by `---`). Syntax errors, duplicate keys, unknown tags
 * and alias bombs are problems with their positions; a document with a problem has no value.
 */
export function parseYamlStream(text: string): { documents: YamlDocument[]; problems: SourceProblem[] } {
  const lines = new LineCounter();
  const documents: YamlDocument[] = [];
  const problems: SourceProblem[] = [];
  const at = (offset: number): Position => {
    const p = lines.linePos(offset);
    return { line: p.line, column: p.col };
  };
  let parsed: Document.Parsed[];
  try {
    const all = parseAllDocuments(text, {
      lineCounter: lines,
      prettyErrors: false,
      uniqueKeys: true,
      strict: true,
      merge: false,
    });
    parsed = Array.isArray(all) ? all : [];
  } catch (err) {
    if (err instanceof RangeError)
      return { documents, problems: [{ message: 'the YAML nests too deeply', position: { line: 1, column: 1 } }] };
    throw err;
  }
  parsed.forEach((doc, index) => {
    const issues = [...doc.errors, ...doc.warnings];
    for (const e of issues) problems.push({ message: firstLine(e.message), position: at(e.pos[0]) });
    if (issues.length) return;
    if (doc.contents === null) return; // an empty document (a trailing `---`)
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIASES });
    } catch (err) {
      const message =
        err instanceof RangeError
          ? 'the YAML nests too deeply'
          : `the document cannot be read: ${firstLine((err as Error).message)}`;
      problems.push({ message, position: at(doc.range[0]) });
      return;
    }
    documents.push(new YamlDocument(doc, lines, text, value, index));
  });
  return { documents, problems };
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}
