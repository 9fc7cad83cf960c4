import { graphql, type ResultOf } from './graphql.js';

// The page size is written in the query (20): the operation limits weigh bodies, headers and run
// outputs by it, and a page size given by a variable would count as the largest page (refused).

/** A page of an agent's webhook deliveries, each with the outcome of its latest run. */
export const DeliveriesQuery = graphql(`
  query WebhookDeliveries($agentId: ID!, $after: String, $integration: String, $status: WebhookDeliveryStatus) {
    webhookDeliveries(agentId: $agentId, first: 20, after: $after, integration: $integration, status: $status) {
      nodes {
        id
        integration
        status
        attempts
        failures
        nextAttemptAt
        lastError
        createdAt
        completedAt
        replayOf
        runId
        senderDeliveryId
        method
        bodyBytes
        bodyDroppedAt
        body
        headers
        run {
          runId
          output
          error
          credits
          durationMs
        }
      }
      endCursor
      hasNextPage
    }
  }
`);

/** Queues a delivery again (a new delivery that names the first). */
export const ReplayMutation = graphql(`
  mutation ReplayWebhookDelivery($id: ID!) {
    replayWebhookDelivery(id: $id) {
      id
      status
      replayOf
    }
  }
`);

export type Delivery = ResultOf<typeof DeliveriesQuery>['webhookDeliveries']['nodes'][number];
export type Status = Delivery['status'];
