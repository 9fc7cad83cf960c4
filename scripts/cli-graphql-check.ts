// Checks every GraphQL document of the CLI (packages/cli, plain JavaScript) against schema.graphql
// with graphql-js, as `gql-tada check` does for the console; `npm run typecheck` runs it. A
// document is a string or template literal that starts with `query`, `mutation`, `subscription` or
// `fragment`, and whatever the CLI passes to its GraphQL client (`gql(…)`). Template parts are
// filled in from constants (also imported ones); a number that only the running CLI knows (a page
// size) stands as 1. A `gql(…)` argument the check cannot read fails it: documents stay readable.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, parse, validate, type GraphQLError, type SourceLocation } from 'graphql';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(root, 'packages/cli');
const DOCUMENT = /^\s*((query|mutation|subscription)\b\s*(\w+\s*)?[({]|fragment\s+\w+\s+on\b)/;

/** A run of a document's text and where it starts in a source file. */
interface Piece {
  text: string;
  file: ts.SourceFile;
  pos: number;
  /** false: one value stands for the whole run (a number filled in), so report its start. */
  exact: boolean;
}

interface Document {
  node: ts.Node;
  pieces: Piece[];
}

class Unreadable extends Error {
  constructor(readonly node: ts.Node) {
    super('not readable');
  }
}

function jsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : jsFiles(full);
    return e.name.endsWith('.js') ? [full] : [];
  });
}

const files = jsFiles(CLI);
const program = ts.createProgram(files, {
  allowJs: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  skipLibCheck: true,
});
const checker = program.getTypeChecker();

function declarationOf(id: ts.Identifier): ts.Declaration | undefined {
  let symbol = checker.getSymbolAtLocation(id);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.valueDeclaration ?? symbol?.declarations?.[0];
}

/** The initializer of a `const` the identifier names, if it is one. */
function constValue(id: ts.Identifier): ts.Expression | undefined {
  const decl = declarationOf(id);
  if (!decl || !ts.isVariableDeclaration(decl) || !decl.initializer) return undefined;
  return ts.getCombinedNodeFlags(decl) & ts.NodeFlags.Const ? decl.initializer : undefined;
}

function literalPiece(node: ts.Node, text: string): Piece {
  // The text starts after the opening quote, backtick or `}`.
  return { text, file: node.getSourceFile(), pos: node.getStart() + 1, exact: true };
}

/** The text of a string-valued expression, in pieces that know where they came from. */
function evaluate(expr: ts.Expression): Piece[] {
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return [literalPiece(expr, expr.text)];
  if (ts.isParenthesizedExpression(expr)) return evaluate(expr.expression);
  if (ts.isTemplateExpression(expr)) {
    const pieces = [literalPiece(expr.head, expr.head.text)];
    for (const span of expr.templateSpans)
      pieces.push(...evaluate(span.expression), literalPiece(span.literal, span.literal.text));
    return pieces;
  }
  if (ts.isBinaryExpression(expr) && expr.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    return [...evaluate(expr.left), ...evaluate(expr.right)];
  }
  if (ts.isNumericLiteral(expr))
    return [{ text: expr.text, file: expr.getSourceFile(), pos: expr.getStart(), exact: false }];
  if (ts.isIdentifier(expr)) {
    const value = constValue(expr);
    if (value) return evaluate(value);
    // A number the CLI computes (a page size): any number makes the same document.
    if (checker.getTypeAtLocation(expr).flags & ts.TypeFlags.NumberLike) {
      return [{ text: '1', file: expr.getSourceFile(), pos: expr.getStart(), exact: false }];
    }
  }
  throw new Unreadable(expr);
}

/** The literal that holds the document an argument of `gql(…)` names: itself, a constant, or what a function returns. */
function documentNode(expr: ts.Expression): ts.Expression {
  if (ts.isParenthesizedExpression(expr)) return documentNode(expr.expression);
  if (ts.isIdentifier(expr)) {
    const value = constValue(expr);
    if (value) return documentNode(value);
  }
  if (ts.isCallExpression(expr) && ts.isIdentifier(expr.expression)) {
    const fn = constValue(expr.expression);
    if (fn && ts.isArrowFunction(fn) && !ts.isBlock(fn.body)) return documentNode(fn.body);
  }
  return expr;
}

const isLiteral = (n: ts.Node): n is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression =>
  ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n);

const documents = new Map<ts.Node, Document>();
const problems: string[] = [];

function where(file: ts.SourceFile, pos: number): string {
  const { line, character } = file.getLineAndCharacterOfPosition(pos);
  return `${path.relative(root, file.fileName)}:${line + 1}:${character + 1}`;
}

function add(node: ts.Expression): void {
  if (documents.has(node)) return;
  try {
    documents.set(node, { node, pieces: evaluate(node) });
  } catch (err) {
    if (!(err instanceof Unreadable)) throw err;
    problems.push(
      `${where(err.node.getSourceFile(), err.node.getStart())}: cannot read \`${err.node.getText()}\` in a GraphQL document; use a constant or a number`,
    );
  }
}

for (const file of program.getSourceFiles().filter((f) => files.includes(path.resolve(f.fileName)))) {
  const visit = (node: ts.Node): void => {
    if (isLiteral(node)) {
      const head = ts.isTemplateExpression(node) ? node.head.text : node.text;
      if (DOCUMENT.test(head)) add(node);
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'gql') {
      const [arg] = node.arguments;
      const doc = arg && documentNode(arg);
      if (doc && isLiteral(doc)) add(doc);
      else problems.push(`${where(file, node.getStart())}: gql(…) gets a document this check cannot read`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

/** Where a location of the document's text is in the source, and whether that is inside the document's literal. */
function sourceOf(doc: Document, text: string, at: SourceLocation): { where: string; inside: boolean } {
  const lines = text.split('\n');
  let offset = lines.slice(0, at.line - 1).reduce((n, l) => n + l.length + 1, 0) + at.column - 1;
  for (const piece of doc.pieces) {
    if (offset < piece.text.length) {
      const pos = piece.pos + (piece.exact ? offset : 0);
      const inside = piece.file === doc.node.getSourceFile() && pos >= doc.node.getStart() && pos < doc.node.getEnd();
      return { where: where(piece.file, pos), inside };
    }
    offset -= piece.text.length;
  }
  return { where: where(doc.node.getSourceFile(), doc.node.getStart()), inside: true };
}

const schema = buildSchema(fs.readFileSync(path.join(root, 'schema.graphql'), 'utf8'));
for (const doc of documents.values()) {
  const text = doc.pieces.map((p) => p.text).join('');
  let errors: readonly GraphQLError[];
  try {
    errors = validate(schema, parse(text));
  } catch (err) {
    errors = [err as GraphQLError];
  }
  for (const error of errors) {
    const at = error.locations?.[0];
    const source = at
      ? sourceOf(doc, text, at)
      : { where: where(doc.node.getSourceFile(), doc.node.getStart()), inside: true };
    // A constant that several documents use: say which document failed.
    const which = source.inside ? '' : ` (in the document at ${where(doc.node.getSourceFile(), doc.node.getStart())})`;
    problems.push(`${source.where}: ${error.message}${which}`);
  }
}

if (problems.length) {
  console.error(`The CLI's GraphQL does not match schema.graphql:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`packages/cli: ${documents.size} GraphQL documents valid against schema.graphql.`);
