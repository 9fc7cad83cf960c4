import { GraphQLError, Kind, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext } from 'graphql';

export const MAX_DEPTH = 10;
export const MAX_COMPLEXITY = 1000;

interface Measure {
  depth: number;
  fields: number;
}

/**
 * Validation rule: refuses an operation nested deeper than `maxDepth` fields, or selecting more
 * than `maxComplexity` fields in all (fragments expanded, each field costing 1). Runs before any
 * resolver, so an abusive query costs no database work.
 */
export function operationLimits(maxDepth: number, maxComplexity: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    const measure = (set: SelectionSetNode | undefined, seen: ReadonlySet<string>): Measure => {
      const m: Measure = { depth: 0, fields: 0 };
      if (!set) return m;
      for (const sel of set.selections) {
        let inner: Measure;
        if (sel.kind === Kind.FIELD) {
          if (sel.name.value.startsWith('__')) continue;
          inner = measure(sel.selectionSet, seen);
          inner = { depth: inner.depth + 1, fields: inner.fields + 1 };
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          inner = measure(sel.selectionSet, seen);
        } else {
          const name = sel.name.value;
          const frag = fragments.get(name);
          // A fragment spread inside itself is reported by GraphQL's own rules; count it once.
          if (!frag || seen.has(name)) continue;
          inner = measure(frag.selectionSet, new Set([...seen, name]));
        }
        m.depth = Math.max(m.depth, inner.depth);
        m.fields += inner.fields;
        if (m.fields > maxComplexity) break;
      }
      return m;
    };
    return {
      OperationDefinition(node) {
        const m = measure(node.selectionSet, new Set());
        if (m.depth > maxDepth) {
          context.reportError(new GraphQLError(`Query is nested ${m.depth} levels deep; the limit is ${maxDepth}`, { nodes: [node] }));
        } else if (m.fields > maxComplexity) {
          context.reportError(new GraphQLError(`Query selects more than ${maxComplexity} fields; split it into smaller queries`, { nodes: [node] }));
        }
      },
    };
  };
}
