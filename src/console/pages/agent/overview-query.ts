import { graphql, type ResultOf } from '../../graphql.js';

// The Overview's dashboard: what the agent answers on, the model its runs use, the getting-started
// checklist's facts and today's figures, in one query.

export const AgentDashboardQuery = graphql(`
  query AgentDashboard($id: ID!, $since: DateTimeISO!) {
    agent(id: $id) {
      id
      name
      surfaces {
        surface
        enabled
      }
      httpEndpoints {
        id
        path
        methods
        inputSchema
        modelOverride
      }
      mcpTools {
        id
        name
        modelOverride
      }
      webhooks {
        id
        integration
        modelOverride
      }
      documents {
        id
        name
      }
      documentExposures {
        id
        documentId
      }
      channels {
        id
        kind
        address
        modelOverride
      }
      apiKeys {
        id
        name
        origin
        revokedAt
        expiresAt
      }
      modelInUse {
        reference
        source
        provider
        model
        configured
        problem
      }
      usage(days: 1) {
        day
        credits
        runs
      }
      lastCall: activity(first: 1) {
        nodes {
          id
          createdAt
        }
      }
      callsToday: activity(first: 100, since: $since) {
        hasNextPage
        nodes {
          id
        }
      }
      errorsToday: activity(first: 100, since: $since, status: "error") {
        hasNextPage
        nodes {
          id
        }
      }
    }
  }
`);

export type Dashboard = ResultOf<typeof AgentDashboardQuery>['agent'];

/** The start of the current UTC day (the day limits and usage count by). */
export function startOfUtcDay(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
}
