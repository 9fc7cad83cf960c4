import { graphql } from '../../graphql.js';

/** What the agent page itself shows (its name) and the Overview tab edits. */
export const AgentQuery = graphql(`
  query Agent($id: ID!) {
    agent(id: $id) {
      id
      name
      slug
      description
      instructions
      defaultModel
      visibility
      updatedAt
    }
    models {
      id
      name
      model
      provider
      isDefault
    }
  }
`);
