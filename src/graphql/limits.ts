import { GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';
import { MAX_LOGGED_BODY } from '../domain/activity/activity-log.js';
import { MAX_ACTIVITY_PAGE, MAX_USAGE_DAYS } from '../domain/activity/activity.service.js';
import { MAX_HANDLER } from '../domain/entries/entry.schemas.js';
import { MAX_MESSAGE_PAGE } from '../domain/messages/message.service.js';
import { MAX_FIRES_SHOWN, MAX_SCHEDULE_INPUT_BYTES } from '../domain/schedules/schedule.schemas.js';
import { DELIVERY_BODY_SHOWN_BYTES } from '../domain/webhooks/webhook-deliveries.service.js';
import { measurer, type Measure, type OperationLimits } from './operation-measure.js';

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
  count: MAX_FIRES_SHOWN,
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
  'Schedule.input': MAX_SCHEDULE_INPUT_BYTES,
};

export const DEFAULT_LIMITS: OperationLimits = {
  maxDepth: MAX_DEPTH,
  maxIntrospectionDepth: MAX_INTROSPECTION_DEPTH,
  maxComplexity: MAX_COMPLEXITY,
  maxAnswerBytes: MAX_ANSWER_BYTES,
  unpagedListItems: UNPAGED_LIST_ITEMS,
  pageArguments: PAGE_ARGUMENTS,
  fieldBytes: FIELD_BYTES,
};

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

const mebibytes = (n: number) => (n % (1024 * 1024) === 0 ? `${n / 1024 / 1024} MiB` : `${n} bytes`);
