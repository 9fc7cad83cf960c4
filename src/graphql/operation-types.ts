import { GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';

/**
 * Refuses an operation whose root type the schema does not define (there is no Subscription type):
 * graphql 16 lets one through validation and fails it at execution with an error that has no code,
 * which would be answered and logged as an internal error. graphql 17 has this rule built in
 * (KnownOperationTypesRule); this is the same check for 16.
 */
export function knownOperationTypes(context: ValidationContext): ASTVisitor {
  const schema = context.getSchema();
  return {
    OperationDefinition(node) {
      if (!schema.getRootType(node.operation)) {
        context.reportError(
          new GraphQLError(`The ${node.operation} operation is not supported by the schema`, { nodes: node }),
        );
      }
    },
  };
}
