import { graphql, type ResultOf } from '../../graphql.js';

/** A page of the agent's activity log, light fields only (the drawer asks one entry's bodies). */
export const ActivityQuery = graphql(`
  query AgentActivity(
    $id: ID!
    $after: String
    $surface: Surface
    $status: String
    $entry: String
    $since: DateTimeISO
    $until: DateTimeISO
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
        }
        endCursor
        hasNextPage
      }
    }
  }
`);

/** One entry of a page of the log. */
export type ActivityNode = ResultOf<typeof ActivityQuery>['agent']['activity']['nodes'][number];
