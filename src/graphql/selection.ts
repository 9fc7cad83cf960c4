import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/** The fields selected directly in a selection set, through fragments and inline fragments. */
function fieldsIn(set: SelectionSetNode | undefined, info: GraphQLResolveInfo, out: FieldNode[] = []): FieldNode[] {
  for (const s of set?.selections ?? []) {
    if (s.kind === Kind.FIELD) out.push(s);
    else if (s.kind === Kind.INLINE_FRAGMENT) fieldsIn(s.selectionSet, info, out);
    else {
      const fragment = info.fragments[s.name.value];
      if (fragment) fieldsIn(fragment.selectionSet, info, out);
    }
  }
  return out;
}

/**
 * Whether the operation asks, below the resolved field and along `path` (e.g. `['nodes']`), for any
 * of `names`. Lets a resolver skip reading what nobody asked for (an activity page's bodies).
 * Directives are not evaluated: a field under `@skip` counts as asked, which only reads more.
 */
export function selects(info: GraphQLResolveInfo, path: string[], names: readonly string[]): boolean {
  let level = info.fieldNodes.flatMap((f) => fieldsIn(f.selectionSet, info));
  for (const step of path)
    level = level.filter((f) => f.name.value === step).flatMap((f) => fieldsIn(f.selectionSet, info));
  return level.some((f) => names.includes(f.name.value));
}
