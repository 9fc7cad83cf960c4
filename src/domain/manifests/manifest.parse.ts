import type { z } from 'zod';
import { Invalid } from '../errors.js';
import { validateRecord } from '../documents/records.js';
import { checkModelOverride, pathShape } from '../entries/entry.schemas.js';
import { agentManifest, MAX_MANIFEST_AGENTS, MAX_MANIFEST_BYTES, type AgentManifest } from './manifest.schemas.js';
import { salvagedEntries, type EntryLists } from './manifest.salvage.js';
import { parseYamlStream, type Position, type ValuePath, type YamlDocument } from './yaml-source.js';

/** One thing wrong with a manifest: what, at which field, and where in the text. */
export interface ManifestIssue {
  /** The field as a dotted path (`spec.httpApi.endpoints.1.path`); empty for the document itself. */
  field: string;
  message: string;
  line: number;
  column: number;
}

/** A manifest document that passed validation, with the way back to its text. */
export interface ParsedAgent {
  manifest: AgentManifest;
  source: YamlDocument;
}

/** The entries of a document that can be checked further (scripts compile): all of a valid one's, the valid ones of another. */
export interface CheckableEntries {
  source: YamlDocument;
  spec: EntryLists;
}

export const fieldOf = (path: ValuePath) => path.map(String).join('.');

/** An issue at `path` of a document. */
export function issueAt(source: YamlDocument, path: ValuePath, message: string, position?: Position): ManifestIssue {
  const at = position ?? source.locate(path);
  return { field: fieldOf(path), message, line: at.line, column: at.column };
}

/** The Invalid error that carries every issue: one message listing them, and each in `errors`. */
export function manifestInvalid(issues: ManifestIssue[]): Invalid {
  const sorted = [...issues].sort((a, b) => a.line - b.line || a.column - b.column || a.field.localeCompare(b.field));
  const first = sorted[0]!;
  const lines = sorted.map((i) => `line ${i.line}, column ${i.column}: ${i.field ? `${i.field}: ` : ''}${i.message}`);
  return new Invalid(
    `The manifest has ${sorted.length === 1 ? 'an error' : `${sorted.length} errors`}: ${lines.join('; ')}`,
    first.field ? `yaml.${first.field}` : 'yaml',
    {
      line: first.line,
      column: first.column,
      errors: sorted,
    },
  );
}

/**
 * Parses and validates manifest text: YAML syntax, then every document against the manifest schema
 * (the domain's input schemas), unknown fields, and the rules that span entries (unique names and
 * paths, records against their fields) — in a document that does not match the schema, among its
 * entries that do, so that one answer lists every error. Returns the documents that match the
 * schema (to be checked against the workspace), the entries whose scripts are to be compiled, and
 * every issue found.
 */
export function parseManifest(text: string): {
  agents: ParsedAgent[];
  checkable: CheckableEntries[];
  issues: ManifestIssue[];
} {
  if (Buffer.byteLength(text, 'utf8') > MAX_MANIFEST_BYTES) {
    throw new Invalid(
      `yaml: the manifest is larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MiB; split it into several files and apply them one by one`,
      'yaml',
    );
  }
  const { documents, problems } = parseYamlStream(text);
  const issues: ManifestIssue[] = problems.map((p) => ({
    field: '',
    message: p.message,
    line: p.position.line,
    column: p.position.column,
  }));
  if (documents.length === 0 && problems.length === 0)
    issues.push({
      field: '',
      message: 'the manifest holds no document: give at least one `kind: Agent` document',
      line: 1,
      column: 1,
    });
  if (documents.length > MAX_MANIFEST_AGENTS) {
    const at = documents[MAX_MANIFEST_AGENTS]!.start();
    issues.push({
      field: '',
      message: `a manifest may describe at most ${MAX_MANIFEST_AGENTS} agents`,
      line: at.line,
      column: at.column,
    });
    return { agents: [], checkable: [], issues };
  }
  const agents: ParsedAgent[] = [];
  const checkable: CheckableEntries[] = [];
  const seen = new Map<string, YamlDocument>();
  for (const source of documents) {
    const found = validateDocument(source);
    issues.push(...found.issues);
    if (found.entries) checkable.push({ source, spec: found.entries });
    if (!found.manifest) continue;
    // One slug, or one name without a slug, is one agent (two documents that reach one agent in
    // other ways are found when they are matched: analyseManifest).
    const { name, slug } = found.manifest.metadata;
    const key = slug ? `slug:${slug}` : `name:${name}`;
    if (seen.has(key)) {
      issues.push(
        issueAt(
          source,
          ['metadata', slug ? 'slug' : 'name'],
          `the agent '${slug ?? name}' is described twice in this manifest (also in the document at line ${seen.get(key)!.start().line})`,
        ),
      );
      continue;
    }
    seen.set(key, source);
    agents.push({ manifest: found.manifest, source });
  }
  return { agents, checkable, issues };
}

function validateDocument(source: YamlDocument): {
  manifest?: AgentManifest;
  entries?: EntryLists;
  issues: ManifestIssue[];
} {
  const value = source.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      issues: [issueAt(source, [], 'a manifest document must be a mapping with apiVersion, kind, metadata and spec')],
    };
  }
  const issues: ManifestIssue[] = unknownFields(agentManifest, value, []).map(({ path, key, known }) => ({
    ...issueAt(
      source,
      [...path, key],
      `unknown field '${key}'${known.length ? `; the fields are ${known.join(', ')}` : ''}`,
      source.locateKey(path, key),
    ),
  }));
  const result = agentManifest.safeParse(value);
  if (!result.success) {
    for (const i of result.error.issues) issues.push(issueAt(source, i.path as (string | number)[], zodMessage(i)));
    // The rest of the document is checked too: a wrong type must not hide a duplicate path.
    const entries = salvagedEntries(value);
    issues.push(...crossChecks(source, entries));
    return { entries, issues };
  }
  issues.push(...crossChecks(source, result.data.spec));
  return { manifest: result.data, entries: result.data.spec, issues };
}

function zodMessage(i: z.core.$ZodIssue): string {
  if (i.code === 'invalid_value' && i.values.length === 1) return `must be ${JSON.stringify(i.values[0])}`;
  return i.message;
}

/** The rules that span a document's entries; each issue at the entry that breaks the rule. */
function crossChecks(source: YamlDocument, s: EntryLists): ManifestIssue[] {
  const issues: ManifestIssue[] = [];
  const at = (path: ValuePath, message: string) => issues.push(issueAt(source, path, message));
  const unique = <T>(
    list: T[] | undefined,
    base: ValuePath,
    keyField: string,
    key: (e: T) => string,
    what: (e: T) => string,
  ) => {
    const seen = new Map<string, number>();
    list?.forEach((e, i) => {
      const k = key(e);
      const first = seen.get(k);
      if (first !== undefined) at([...base, i, keyField], `${what(e)} appears twice (also entry ${first})`);
      else seen.set(k, i);
    });
  };
  const endpoints = s.httpApi?.endpoints;
  unique(
    endpoints,
    ['spec', 'httpApi', 'endpoints'],
    'path',
    (e) => pathShape(e.path),
    (e) => `the path '${e.path}' (or one of the same shape)`,
  );
  unique(
    s.mcp?.tools,
    ['spec', 'mcp', 'tools'],
    'name',
    (e) => e.name,
    (e) => `the tool '${e.name}'`,
  );
  unique(
    s.webhooks?.integrations,
    ['spec', 'webhooks', 'integrations'],
    'integration',
    (e) => e.integration,
    (e) => `the integration '${e.integration}'`,
  );
  unique(
    s.channels,
    ['spec', 'channels'],
    'address',
    (e) => `${e.kind}:${e.address}`,
    (e) => `the ${e.kind} address '${e.address}'`,
  );
  unique(
    s.schedules,
    ['spec', 'schedules'],
    'name',
    (e) => e.name,
    (e) => `the schedule '${e.name}'`,
  );
  unique(
    s.documents,
    ['spec', 'documents'],
    'name',
    (e) => e.name,
    (e) => `the document '${e.name}'`,
  );
  const overrides: [
    ValuePath,
    { handler: { kind: 'prompt' | 'script'; body: string }; modelOverride?: string | null }[] | undefined,
  ][] = [
    [['spec', 'httpApi', 'endpoints'], endpoints],
    [['spec', 'mcp', 'tools'], s.mcp?.tools],
    [['spec', 'webhooks', 'integrations'], s.webhooks?.integrations],
    [['spec', 'channels'], s.channels],
    [['spec', 'schedules'], s.schedules],
  ];
  for (const [base, list] of overrides) {
    list?.forEach((e, i) => {
      try {
        checkModelOverride(e.handler, e.modelOverride ?? null);
      } catch (err) {
        if (err instanceof Invalid) at([...base, i, 'modelOverride'], err.message.replace(/^modelOverride: /, ''));
        else throw err;
      }
    });
  }
  s.documents?.forEach((d, i) => {
    const base = ['spec', 'documents', i];
    if (d.kind === 'TEXT' && d.fields.length) at([...base, 'fields'], 'only DATABASE documents have fields');
    if (d.kind === 'TEXT' && d.records) at([...base, 'records'], 'only DATABASE documents have records');
    if (d.kind !== 'DATABASE' || !d.records) return;
    d.records.forEach((r, j) => {
      if (Object.hasOwn(r, 'id'))
        at([...base, 'records', j, 'id'], 'records carry no id in a manifest: the service assigns ids');
      try {
        validateRecord(d.fields, r, `${j}`);
      } catch (err) {
        if (!(err instanceof Invalid)) throw err;
        const rest = (err.field ?? `${j}`).split('.').slice(1);
        at([...base, 'records', j, ...rest], err.message.replace(/^[^:]*: /, ''));
      }
    });
  });
  return issues;
}

type Def = { type: string; innerType?: unknown; in?: unknown; shape?: Record<string, unknown>; element?: unknown };
const defOf = (s: unknown) => (s as { _zod?: { def?: Def } } | undefined)?._zod?.def;

/** The schema inside optional, nullable, default and transform wrappers. */
function unwrap(s: unknown): unknown {
  for (let d = defOf(s); d; d = defOf(s)) {
    if (d.innerType !== undefined) s = d.innerType;
    else if (d.type === 'pipe') s = d.in;
    else break;
  }
  return s;
}

/**
 * Keys of `value` that the object schemas along the way do not name (zod's objects drop them
 * silently; a manifest refuses them). Free-form values (records, JSON Schemas) are not looked into.
 */
export function unknownFields(
  schema: unknown,
  value: unknown,
  path: (string | number)[],
): { path: (string | number)[]; key: string; known: string[] }[] {
  const s = unwrap(schema);
  const d = defOf(s);
  if (!d || value === null || typeof value !== 'object') return [];
  if (d.type === 'array' && Array.isArray(value))
    return value.flatMap((v, i) => unknownFields(d.element, v, [...path, i]));
  if (d.type !== 'object' || !d.shape || Array.isArray(value)) return [];
  const known = Object.keys(d.shape);
  const out: { path: (string | number)[]; key: string; known: string[] }[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (!Object.hasOwn(d.shape, k)) out.push({ path, key: k, known });
    else out.push(...unknownFields(d.shape[k], v, [...path, k]));
  }
  return out;
}
