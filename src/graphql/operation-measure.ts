import {
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
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

// How much an operation may return, measured from its document before it runs: depth, field
// values and bytes of large values, each fragment once per page size (see operationLimits).

/** The bounds an operation is measured against (DEFAULT_LIMITS in limits.ts). */
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

export interface Measure {
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

/** Measures selections of one document; each fragment is measured once per page size. */
export function measurer(context: ValidationContext, limits: OperationLimits) {
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
