import {
  GraphQLError,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  getNamedType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import { MAX_LOGGED_BODY } from '../domain/activity/activity-log.js';
import { MAX_ACTIVITY_PAGE, MAX_USAGE_DAYS } from '../domain/activity/activity.service.js';
import { MAX_HANDLER } from '../domain/entries/entry.schemas.js';
import { MAX_MESSAGE_PAGE } from '../domain/messages/message.service.js';
import { DELIVERY_BODY_SHOWN_BYTES } from '../domain/webhooks/webhook-deliveries.service.js';

/** Nesting of data fields. */
export const MAX_DEPTH = 10;
/**
 * Nesting under `__schema` / `__type`: the depth of graphql's standard introspection query
 * (`getIntrospectionQuery()`, whose type references follow `ofType` 9 times), so that GraphQL
 * tooling keeps working and nothing deeper is accepted.
 */
export const MAX_INTROSPECTION_DEPTH = 15;
/** Field values an operation may return, counted before it runs (see `operationLimits`). */
export const MAX_COMPLEXITY = 1000;
/**
 * Tokens a document may hold (graphql-java's default). Parsing stops past it, before any
 * validation rule walks a document nested deep enough to exhaust the stack (a 500).
 */
export const MAX_TOKENS = 15_000;
/** Items assumed for a list without a page size (agents, entries, keys, members…). */
export const UNPAGED_LIST_ITEMS = 10;
/** Arguments that size a page, with the largest value the domain accepts for each. */
export const PAGE_ARGUMENTS: Readonly<Record<string, number>> = {
  first: MAX_ACTIVITY_PAGE,
  days: MAX_USAGE_DAYS,
  pageSize: MAX_MESSAGE_PAGE,
};

/**
 * Bytes an operation's large values may return, counted before it runs (see `operationLimits`):
 * four pages of 200 activity responses (50 MiB) are refused; a page of 100 entries with their
 * headers, request bodies and responses (14 MiB) is not.
 */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** A request's header section (and so its query string) at most: Node's `maxHeaderSize`, which the service keeps. */
const REQUEST_HEADER_BYTES = 16 * 1024;
/**
 * Fields whose one value can pass 32 KiB, with the bytes each counts: the most a value holds (for
 * text, its length in characters), except document content. Every other field counts 0 bytes.
 */
export const FIELD_BYTES: Readonly<Record<string, number>> = {
  // What callers and senders sent, as logged: bodies cut at 64 KiB, headers within Node's bound.
  'ActivityEntry.requestBody': MAX_LOGGED_BODY,
  'ActivityEntry.response': MAX_LOGGED_BODY,
  'ActivityEntry.requestHeaders': REQUEST_HEADER_BYTES,
  'WebhookDelivery.body': DELIVERY_BODY_SHOWN_BYTES,
  'WebhookDelivery.headers': REQUEST_HEADER_BYTES,
  'WebhookDelivery.query': REQUEST_HEADER_BYTES,
  // A delivery's latest run, from its activity entry (the logged response, cut at 64 KiB).
  'DeliveryRun.output': MAX_LOGGED_BODY,
  // What members and agents wrote, within the domain's bounds.
  'HandlerOut.prompt': MAX_HANDLER,
  'HandlerOut.script': MAX_HANDLER,
  'HttpEndpoint.inputSchema': 64 * 1024,
  'HttpEndpoint.outputSchema': 64 * 1024,
  'McpTool.inputSchema': 64 * 1024,
  'McpTool.outputSchema': 64 * 1024,
  'Agent.instructions': 100_000,
  'Guardrails.blockedInputPatterns': 100 * 500,
  'Guardrails.redactOutputPatterns': 100 * 500,
  // A message's text holds up to about 1 MB; counting that for each message of a page would refuse
  // any page of more than 16 with bodies. A body counts 64 KiB (as a record does), so that the
  // largest page (200 messages) weighs 12.5 MiB.
  'Message.body': 64 * 1024,
  // A document holds up to 5 MiB; counting that for each of the 10 documents an agent's list is
  // assumed to hold would refuse reading any agent's documents, so content counts 1 MiB.
  'Document.content': 1024 * 1024,
  // A record is written in one request body (at most 1 MiB) and a STRING field holds at most 100,000
  // characters. Counting 1 MiB for each record of a page would refuse any page of more than 16; a
  // record counts 64 KiB, so that the largest page (200 records) weighs 12.5 MiB.
  'DocumentRecord.data': 64 * 1024,
};

export interface OperationLimits {
  maxDepth: number;
  maxIntrospectionDepth: number;
  maxComplexity: number;
  maxAnswerBytes: number;
  unpagedListItems: number;
  pageArguments: Readonly<Record<string, number>>;
  /** Bytes a value of a field counts, by `Type.field`. */
  fieldBytes: Readonly<Record<string, number>>;
}

export const DEFAULT_LIMITS: OperationLimits = {
  maxDepth: MAX_DEPTH,
  maxIntrospectionDepth: MAX_INTROSPECTION_DEPTH,
  maxComplexity: MAX_COMPLEXITY,
  maxAnswerBytes: MAX_ANSWER_BYTES,
  unpagedListItems: UNPAGED_LIST_ITEMS,
  pageArguments: PAGE_ARGUMENTS,
  fieldBytes: FIELD_BYTES,
};

interface Measure {
  /** Deepest nesting of data fields. */
  depth: number;
  /** Deepest nesting under `__schema` / `__type` (0 when the selection has none). */
  introspectionDepth: number;
  /** Field values the selection may return, saturated just above the limit. */
  cost: number;
  /** Bytes its large values may return (FIELD_BYTES), saturated just above the limit. */
  bytes: number;
}

const NOTHING: Measure = { depth: 0, introspectionDepth: 0, cost: 0, bytes: 0 };

/**
 * Validation rule: refuses an operation nested deeper than `maxDepth` data fields (or
 * `maxIntrospectionDepth` under `__schema` / `__type`), or that may return more than
 * `maxComplexity` field values. Every field counts, `__typename` and introspection included.
 * A field inside a list counts once per item the list may return: a paged field (`first`,
 * `days`, `pageSize`) by its page size — the literal value, the argument's default when absent, its maximum
 * when given by a variable (validation does not see variable values); a connection passes its
 * page size to its `nodes`; any other list of objects counts `unpagedListItems` items. Lists of
 * scalars count 1 (their parent resolves them whole) and so do introspection lists (their length
 * is the schema's, and graphql's MaxIntrospectionDepthRule bounds how they nest).
 *
 * Large values are also counted in bytes: each field of `fieldBytes` (bodies, headers, scripts,
 * documents…) counts its bytes once per item of the lists around it, counted as above, and an
 * operation whose values may pass `maxAnswerBytes` is refused too.
 *
 * Each fragment is measured once per page size and the count stops as soon as it passes the
 * limit, so measuring costs time linear in the document whatever its fragments expand to. The
 * rule runs before any resolver: a refused operation costs no database work.
 */
export function operationLimits(overrides: Partial<OperationLimits> = {}) {
  const limits: OperationLimits = { ...DEFAULT_LIMITS, ...overrides };
  return (context: ValidationContext): ASTVisitor => {
    // One measurer per document: its operations share the fragment measures.
    const measure = measurer(context, limits);
    return {
      OperationDefinition(node) {
        let error: string | undefined;
        try {
          error = limitError(
            measure.selectionSet(
              node.selectionSet,
              context.getSchema().getRootType(node.operation) ?? undefined,
              undefined,
            ),
            limits,
          );
        } catch (err) {
          // Nesting that exhausts the stack is far past any limit; a throw here would answer 500.
          if (!(err instanceof RangeError)) throw err;
          error = 'Query nests fields or fragments too deeply';
        }
        if (error) context.reportError(new GraphQLError(error, { nodes: [node] }));
      },
    };
  };
}

function limitError(m: Measure, limits: OperationLimits): string | undefined {
  if (m.depth > limits.maxDepth) return `Query is nested ${m.depth} levels deep; the limit is ${limits.maxDepth}`;
  if (m.introspectionDepth > limits.maxIntrospectionDepth) {
    return `Introspection query is nested ${m.introspectionDepth} levels deep; the limit is ${limits.maxIntrospectionDepth}`;
  }
  if (m.cost > limits.maxComplexity) {
    return (
      `Query may return more than ${limits.maxComplexity} fields (each field counts once per item of the lists around it: ` +
      `a page at its size, or its maximum when set by a variable; another list as ${limits.unpagedListItems} items). ` +
      'Select fewer fields or ask for smaller pages'
    );
  }
  if (m.bytes > limits.maxAnswerBytes) {
    return (
      `Query may return more than ${mebibytes(limits.maxAnswerBytes)} of bodies, headers, documents and scripts (each such field counts ` +
      'its largest size once per item of the lists around it, as for the field count). Ask for fewer of them or smaller pages'
    );
  }
  return undefined;
}

/** Measures selections of one document; each fragment is measured once per page size. */
function measurer(context: ValidationContext, limits: OperationLimits) {
  const schema = context.getSchema();
  const saturate = (n: number) => Math.min(n, limits.maxComplexity + 1);
  const saturateBytes = (n: number) => Math.min(n, limits.maxAnswerBytes + 1);
  const over = (m: Measure) => m.cost > limits.maxComplexity || m.bytes > limits.maxAnswerBytes;
  const fragments = new Map<string, Measure>();
  const measuring = new Set<string>();

  const selectionSet = (
    set: SelectionSetNode,
    parent: GraphQLNamedType | undefined,
    pageSize: number | undefined,
  ): Measure => {
    const total = { ...NOTHING };
    for (const sel of set.selections) {
      const m = selection(sel, parent, pageSize);
      total.depth = Math.max(total.depth, m.depth);
      total.introspectionDepth = Math.max(total.introspectionDepth, m.introspectionDepth);
      total.cost = saturate(total.cost + m.cost);
      total.bytes = saturateBytes(total.bytes + m.bytes);
      // Past a limit the operation is refused whatever follows: stop counting.
      if (over(total)) break;
    }
    return total;
  };

  const selection = (
    sel: SelectionNode,
    parent: GraphQLNamedType | undefined,
    pageSize: number | undefined,
  ): Measure => {
    switch (sel.kind) {
      case Kind.FIELD:
        return field(sel, parent, pageSize);
      case Kind.INLINE_FRAGMENT:
        return selectionSet(
          sel.selectionSet,
          sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent,
          pageSize,
        );
      case Kind.FRAGMENT_SPREAD:
        return fragment(context.getFragment(sel.name.value), pageSize);
    }
  };

  const fragment = (def: FragmentDefinitionNode | null | undefined, pageSize: number | undefined): Measure => {
    if (!def) return NOTHING; // KnownFragmentNamesRule reports it
    const key = `${def.name.value}/${pageSize ?? ''}`;
    const known = fragments.get(key);
    if (known) return known;
    if (measuring.has(key)) return NOTHING; // a cycle: NoFragmentCyclesRule reports it
    measuring.add(key);
    const m = selectionSet(def.selectionSet, schema.getType(def.typeCondition.name.value), pageSize);
    measuring.delete(key);
    fragments.set(key, m);
    return m;
  };

  const field = (
    node: FieldNode,
    parent: GraphQLNamedType | undefined,
    inheritedPageSize: number | undefined,
  ): Measure => {
    const def = fieldDefinition(schema, parent, node.name.value);
    const type = def ? (isNonNullType(def.type) ? def.type.ofType : def.type) : undefined;
    const isList = type !== undefined && isListType(type);
    const pageSize = def ? pageSizeOf(node, def, limits.pageArguments) : undefined;
    // A paged field that is not itself a list (a connection) sizes the lists it holds.
    const inner = node.selectionSet
      ? selectionSet(node.selectionSet, type && getNamedType(type), isList ? undefined : pageSize)
      : NOTHING;
    const items = isList
      ? (pageSize ?? inheritedPageSize ?? (parent && isIntrospectionType(parent) ? 1 : limits.unpagedListItems))
      : 1;
    const cost = saturate(1 + items * inner.cost);
    const bytes = saturateBytes(
      (parent ? (limits.fieldBytes[`${parent.name}.${node.name.value}`] ?? 0) : 0) + items * inner.bytes,
    );
    if (node.name.value === '__schema' || node.name.value === '__type') {
      return { depth: 0, introspectionDepth: 1 + Math.max(inner.depth, inner.introspectionDepth), cost, bytes };
    }
    return {
      depth: inner.depth + 1,
      introspectionDepth: inner.introspectionDepth && inner.introspectionDepth + 1,
      cost,
      bytes,
    };
  };

  return { selectionSet };
}

const mebibytes = (n: number) => (n % (1024 * 1024) === 0 ? `${n / 1024 / 1024} MiB` : `${n} bytes`);

function fieldDefinition(
  schema: GraphQLSchema,
  parent: GraphQLNamedType | undefined,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  if (parent === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  // Unknown fields are reported by FieldsOnCorrectTypeRule; they count 1 each here.
  return parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[name] : undefined;
}

/** The page size a paged field asks for, clamped to what the domain accepts; undefined when not paged. */
function pageSizeOf(
  node: FieldNode,
  def: GraphQLField<unknown, unknown>,
  pageArguments: Readonly<Record<string, number>>,
): number | undefined {
  const arg = def.args.find((a) => pageArguments[a.name] !== undefined);
  if (!arg) return undefined;
  const max = pageArguments[arg.name]!;
  const value = node.arguments?.find((a) => a.name.value === arg.name)?.value;
  let n: number;
  if (!value) n = typeof arg.defaultValue === 'number' ? arg.defaultValue : max;
  else if (value.kind === Kind.INT) n = Number(value.value);
  else n = max; // a variable (unknown until execution) or a value ValuesOfCorrectTypeRule refuses
  // Beyond the maximum the domain refuses the page; below 1 it returns nothing.
  return Math.min(Math.max(n, 1), max);
}
