import { registerEnumType } from 'type-graphql';

// GraphQL enums, derived from the domain's lists of values so the two cannot drift apart. A value
// the domain writes in lower case gets an upper-case GraphQL name (`openai-compatible` →
// OPENAI_COMPATIBLE); the redaction presets keep their own names, as the spec writes them. Each area
// registers its enums beside its types (src/graphql/resolvers/*.types.ts).

/** An enum object for type-graphql: GraphQL name → domain value. */
function graphqlEnum<V extends string>(
  values: readonly V[],
  nameOf: (v: V) => string = (v) => v.toUpperCase().replace(/-/g, '_'),
): Record<string, V> {
  return Object.fromEntries(values.map((v) => [nameOf(v), v]));
}

/** Registers a GraphQL enum of the domain's values; returns the enum object type-graphql takes. */
export function register<V extends string>(
  values: readonly V[],
  name: string,
  opts: { description?: string; nameOf?: (v: V) => string } = {},
): Record<string, V> {
  const e = graphqlEnum(values, opts.nameOf);
  registerEnumType(e, { name, description: opts.description });
  return e;
}
