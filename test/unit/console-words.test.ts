import { expect } from 'chai';
import { buildSchema } from 'graphql';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { viewerLabel } from '../../src/console/viewer-label.js';

// Issue 51, item 7: the console's words are for people. No text a person can see names a GraphQL
// operation ("create it with createSecret"); the console says where to click instead. The
// operations are read from schema.graphql, so a new mutation is covered the day it exists. What a
// person can see: JSX text and the string and template literals of the console's sources (and of
// the CLI's shared modules, which the console bundles), except GraphQL documents, imports, type
// positions, property names and element-access keys, which never reach the screen.

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCES = [join(ROOT, 'src', 'console'), join(ROOT, 'packages', 'cli', 'src', 'shared')];

/**
 * The operation names a person's text must not hold: every query, mutation and subscription field.
 * One-word fields (`agent`, `models`, `workspace`) are ordinary words and stay allowed.
 */
export function operationNames(sdl: string): string[] {
  const schema = buildSchema(sdl);
  return [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]
    .flatMap((t) => (t ? Object.keys(t.getFields()) : []))
    .filter((name) => /[a-z][A-Z]/.test(name));
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? sources(join(dir, d.name))
      : /\.(tsx?|js)$/.test(d.name) && !d.name.endsWith('.d.ts')
        ? [join(dir, d.name)]
        : [],
  );
}

/** Whether a literal sits where no person sees it. */
function hidden(node: ts.Node): boolean {
  for (let n: ts.Node | undefined = node; n; n = n.parent) {
    const p: ts.Node | undefined = n.parent;
    if (!p) break;
    // GraphQL documents: graphql(`…`) and gql(`…`).
    if (ts.isCallExpression(p) && ts.isIdentifier(p.expression) && /^(graphql|gql)$/.test(p.expression.text))
      return true;
    if (ts.isTaggedTemplateExpression(p) && ts.isIdentifier(p.tag) && /^(graphql|gql)$/.test(p.tag.text)) return true;
    if (ts.isImportDeclaration(p) || ts.isExportDeclaration(p) || ts.isLiteralTypeNode(p)) return true;
    if (ts.isPropertyAssignment(p) && p.name === n) return true;
    if (ts.isElementAccessExpression(p) && p.argumentExpression === n) return true;
  }
  return false;
}

/** Each text a person may see in one source file, with its line. */
export function visibleTexts(fileName: string, text: string): Array<{ line: number; text: string }> {
  const kind = fileName.endsWith('x')
    ? ts.ScriptKind.TSX
    : fileName.endsWith('.js')
      ? ts.ScriptKind.JS
      : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const out: Array<{ line: number; text: string }> = [];
  const add = (node: ts.Node, value: string) => {
    if (value.trim() && !hidden(node))
      out.push({ line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, text: value });
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) add(node, node.text);
    else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) add(node, node.text);
    else if (ts.isTemplateExpression(node)) {
      add(node, [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' … '));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** `file:line: text` for each visible text naming one of `names`. */
export function namingOperations(fileName: string, text: string, names: readonly string[]): string[] {
  const pattern = new RegExp(`\\b(${names.join('|')})\\b`);
  return visibleTexts(fileName, text).flatMap((t) => {
    const m = pattern.exec(t.text);
    return m
      ? [`${relative(ROOT, fileName)}:${t.line}: ${m[1]} in ${JSON.stringify(t.text.trim().slice(0, 160))}`]
      : [];
  });
}

describe('console words: no GraphQL operation names in what a person sees', () => {
  const names = operationNames(readFileSync(join(ROOT, 'schema.graphql'), 'utf8'));

  it('reads the operations from schema.graphql', () => {
    expect(names).to.include.members(['createAgentApiKey', 'createSecret', 'updateWebhook', 'webhookDeliveries']);
    expect(names).to.not.include('agent');
  });

  it('finds an operation named in JSX text, a string or a template, and not in a GraphQL document or a property name', () => {
    const sample = [
      'const Q = graphql(`mutation { createSecret(name: "x") { id } }`);',
      "const r = data['createSecret'];",
      "const o = { createSecret: 1, 'updateWebhook': 2 };",
      'const a = <Text>Store it with createSecret first</Text>;',
      "const b = 'then call updateWebhook';",
      'const c = `set ${x} with updateWebhook`;',
    ].join('\n');
    expect(namingOperations(join(ROOT, 'sample.tsx'), sample, names).map((p) => p.split(': ')[0])).to.deep.equal([
      'sample.tsx:4',
      'sample.tsx:5',
      'sample.tsx:6',
    ]);
  });

  it('no console source shows one', () => {
    const files = SOURCES.flatMap(sources);
    expect(files.length).to.be.greaterThan(50);
    const problems = files.flatMap((f) => namingOperations(f, readFileSync(f, 'utf8'), names));
    expect(problems).to.deep.equal([]);
  });
});

describe('console words: the header names the member once', () => {
  it('shows name and role', () => {
    expect(viewerLabel({ name: 'Ada Lovelace', email: 'ada@example.com', role: 'ADMIN' })).to.equal(
      'Ada Lovelace · Admin',
    );
    expect(viewerLabel({ name: '', email: 'bob@example.com', role: 'MEMBER' })).to.equal('bob@example.com · Member');
  });

  it('never repeats the role: the first start\'s "Admin" gives way to the email', () => {
    expect(viewerLabel({ name: 'Admin', email: 'admin@localhost', role: 'ADMIN' })).to.equal('admin@localhost · Admin');
    expect(viewerLabel({ name: 'admin', email: '', role: 'ADMIN' })).to.equal('Admin');
  });
});
