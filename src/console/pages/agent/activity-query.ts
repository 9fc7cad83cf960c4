import { graphql, type ResultOf } from '../../graphql.js';

/**
 * A page of the agent's activity log, light fields only (the drawer asks one entry's bodies): one row
 * per call — a webhook's runs folded into their receipt (`deliveryRun`), protocol traffic only when asked.
 */
export const ActivityQuery = graphql(`
  query AgentActivity(
    $id: ID!
    $after: String
    $surface: Surface
    $status: String
    $entry: String
    $since: DateTimeISO
    $until: DateTimeISO
    $includeProtocol: Boolean!
  ) {
    agent(id: $id) {
      id
      activity(
        first: 50
        after: $after
        surface: $surface
        status: $status
        entry: $entry
        since: $since
        until: $until
        includeProtocol: $includeProtocol
        foldDeliveryRuns: true
      ) {
        nodes {
          id
          kind
          surface
          entry
          method
          path
          status
          credits
          durationMs
          error
          createdAt
          protocol
          deliveryId
          deliveryRun {
            id
            error
          }
        }
        endCursor
        hasNextPage
      }
    }
  }
`);

/** One entry of a page of the log. */
export type ActivityNode = ResultOf<typeof ActivityQuery>['agent']['activity']['nodes'][number];
