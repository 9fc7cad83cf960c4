import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isLeafType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { gqlOk } from './harness.js';

// Every query and mutation of the served schema, found by introspection, as calls with arguments
// filled from pools of ids: the isolation test's GraphQL sweep. An argument or input field named
// like an id (`id`, `agentId`, `ids`, `teamId`…) takes ids of the kind its name says (all kinds for
// a bare `id`); `workspace` takes a workspace id or slug; `name` of an operation that removes or tests
// a thing takes a referable name; `yaml` a manifest; every other required value something plausible.

/** Ids by kind, names a `name` argument may refer to, and the manifest a `yaml` argument carries. */
export interface Pools {
  ids: Record<string, string[]>;
  refNames: string[];
  workspaceRefs: string[];
  yaml: string;
}

export interface SweepCall {
  op: string;
  type: 'query' | 'mutation';
  query: string;
  /** The same call selecting only the answer's own leaf fields (when `query` asks for too many). */
  shallow: string;
  variables: Record<string, unknown>;
  /** The pooled values (ids, names) the call carries: what it tries to reach. */
  refs: string[];
}

/** The served schema, from an introspection query as any client would ask it. */
export async function introspect(token: string): Promise<GraphQLSchema> {
  return buildClientSchema(await gqlOk(token, getIntrospectionQuery()));
}

/** What kind of thing an argument named `name` names, or undefined when it names none. */
export function idKind(name: string): string | undefined {
  if (name === 'id' || name === 'ids') return '*';
  const m = /^(.+?)Ids?$/.exec(name);
  return m ? m[1] : undefined;
}

const isIdLike = (name: string, t: GraphQLInputType) => {
  const named = getNamedType(t).name;
  return (named === 'ID' || named === 'String') && idKind(name) !== undefined;
};

/**
 * The kind a bare `id` of operation `op` names: the thing in the operation's name (`deleteAgent`,
 * `updateHttpEndpoint`, `revokeApiKey`, `exportAgents`…), or every kind when the name says none.
 */
export function kindOfOperation(op: string): string {
  const thing = op.replace(/^(delete|remove|update|revoke|replay|export|get)(?=[A-Z])/, '');
  if (!thing) return '*';
  return (thing[0]!.toLowerCase() + thing.slice(1)).replace(/s$/, '');
}

function idsOf(pools: Pools, name: string, op: string): string[] {
  let kind = idKind(name)!;
  if (kind === '*') kind = kindOfOperation(op);
  return pools.ids[kind] ?? Object.values(pools.ids).flat();
}

/** The candidate values of a top-level argument that can name a thing, or undefined for one that cannot. */
function referenceValues(op: string, arg: GraphQLArgument, pools: Pools): string[] | undefined {
  if (isIdLike(arg.name, arg.type)) return idsOf(pools, arg.name, op);
  if (arg.name === 'workspace') return pools.workspaceRefs;
  if (arg.name === 'name' && /^(delete|remove|test)/.test(op)) return pools.refNames;
  return undefined;
}

const IN_AN_HOUR = () => new Date(Date.now() + 3_600_000).toISOString();

/** A plausible value of an input type: required fields filled; id-like fields from the pools. */
function plausible(name: string, t: GraphQLInputType, pools: Pools, refs: string[], op = ''): unknown {
  const inner = isNonNullType(t) ? t.ofType : t;
  if (isListType(inner)) {
    const one = plausible(name, inner.ofType, pools, refs);
    return one === undefined ? [] : [one];
  }
  if (isIdLike(name, inner)) {
    const v = idsOf(pools, name, op)[0]!;
    refs.push(v);
    return v;
  }
  if (isInputObjectType(inner)) {
    const out: Record<string, unknown> = {};
    for (const f of Object.values(inner.getFields())) {
      if (!isNonNullType(f.type) && !isIdLike(f.name, f.type)) continue;
      out[f.name] = plausible(f.name, f.type, pools, refs);
    }
    if (inner.name === 'HandlerInput') out.script = 'return 1;';
    return out;
  }
  if (isEnumType(inner)) return inner.getValues()[0]!.value;
  switch ((inner as GraphQLNamedType).name) {
    case 'Int':
      return 1;
    case 'Float':
      return 1;
    case 'Boolean':
      return true;
    case 'DateTimeISO':
      return IN_AN_HOUR();
    case 'JSONObject':
      return {};
    default:
      if (name === 'yaml') return pools.yaml;
      if (name === 'email') return 'someone@example.com';
      if (name === 'address') return 'someone@mail.example.com';
      return `plausible-${name}`;
  }
}

/** A selection of the leaf fields of `t`, `depth` object levels down, for fields without required arguments. */
export function selection(t: GraphQLNamedType, depth: number): string {
  if (isLeafType(t)) return '';
  if (!isObjectType(t)) return '{ __typename }';
  const parts: string[] = [];
  for (const f of Object.values(t.getFields()) as GraphQLField<unknown, unknown>[]) {
    if (f.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) continue;
    const named = getNamedType(f.type);
    if (isLeafType(named)) parts.push(f.name);
    else if (depth > 0) parts.push(`${f.name} ${selection(named, depth - 1)}`);
  }
  return parts.length ? `{ ${parts.join(' ')} }` : '{ __typename }';
}

/**
 * The calls of one operation: each combination of its reference arguments' candidates (pool values,
 * and `own` values of the same kind so that one of the caller's own things can be paired with one of
 * the other's, or given an input that names the other's: `updateAgent(id: own, input: {teamId})`)
 * except those that carry nothing of the pools. An operation without a reference argument yields
 * one call (its input fields may still carry ids).
 */
export function callsOf(
  schema: GraphQLSchema,
  type: 'query' | 'mutation',
  field: GraphQLField<unknown, unknown>,
  pools: Pools,
  own: Pools | undefined,
  depth: number,
): SweepCall[] {
  const refArgs = field.args
    .map((a) => ({ a, other: referenceValues(field.name, a, pools), mine: own && referenceValues(field.name, a, own) }))
    .filter((x) => x.other !== undefined);
  let combos: { values: Record<string, string>; foreign: boolean }[] = [{ values: {}, foreign: false }];
  for (const { a, other, mine } of refArgs) {
    const next: typeof combos = [];
    for (const c of combos) {
      for (const v of other!) next.push({ values: { ...c.values, [a.name]: v }, foreign: true });
      for (const v of mine ?? []) next.push({ values: { ...c.values, [a.name]: v }, foreign: c.foreign });
    }
    combos = next;
  }
  const sel = selection(getNamedType(field.type), depth);
  const shallow = selection(getNamedType(field.type), 0);
  const calls = combos.map((c) => {
    const refs = Object.values(c.values);
    const variables: Record<string, unknown> = {};
    const decls: string[] = [];
    const uses: string[] = [];
    for (const a of field.args) {
      let v: unknown;
      if (a.name in c.values)
        v = isListType(isNonNullType(a.type) ? a.type.ofType : a.type) ? [c.values[a.name]] : c.values[a.name];
      else if (isNonNullType(a.type) && a.defaultValue === undefined) v = plausible(a.name, a.type, pools, refs);
      else if (isInputObjectType(getNamedType(a.type)) || a.name === 'yaml') v = plausible(a.name, a.type, pools, refs);
      else continue;
      variables[a.name] = v;
      decls.push(`$${a.name}: ${a.type.toString()}`);
      uses.push(`${a.name}: $${a.name}`);
    }
    const head = decls.length ? `(${decls.join(', ')})` : '';
    const args = uses.length ? `(${uses.join(', ')})` : '';
    const query = (s: string) => `${type}${head} { ${field.name}${args} ${s} }`;
    // Whether the call carries anything of the pools: a pooled argument, or an id in its input.
    const foreign = c.foreign || refs.length > Object.keys(c.values).length;
    return { op: field.name, type, query: query(sel), shallow: query(shallow), variables, refs, foreign };
  });
  // The caller's own values alone reach nothing of the other's: left out, unless an input carries its ids.
  return calls.filter((c) => c.foreign || !refArgs.length).map(({ foreign: _foreign, ...call }) => call);
}

/** Runs `fn` over `items`, `n` at a time. */
export async function inParallel<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: n }, worker));
}

/** Every query and mutation of the schema as calls (see `callsOf`). */
export function sweep(schema: GraphQLSchema, pools: Pools, own: Pools | undefined, depth = 1): SweepCall[] {
  const out: SweepCall[] = [];
  for (const [type, root] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const) {
    for (const f of Object.values(root!.getFields())) out.push(...callsOf(schema, type, f, pools, own, depth));
  }
  return out;
}
