import type { Knex } from 'knex';
import * as initial from './20261122000000_initial.js';
import * as creditReservations from './20261205000000_credit_reservations.js';
import * as mcpOutputSchema from './20261210000000_mcp_output_schema.js';
import * as webhookDeliveries from './20261215000000_webhook_deliveries.js';
import * as chatVisitors from './20261220000000_chat_visitors.js';
import * as httpEndpointSchemas from './20261225000000_http_endpoint_schemas.js';
import * as changeNotifications from './20261230000000_change_notifications.js';
import * as numberedSlots from './20270105000000_numbered_slots.js';
import * as messageDayCounts from './20270110000000_message_day_counts.js';
import * as activityRequestId from './20270115000000_activity_request_id.js';
import * as webhookBodyBounds from './20270120000000_webhook_body_bounds.js';
import * as webhookFairClaim from './20270125000000_webhook_fair_claim.js';
import * as activityRunId from './20270130000000_activity_run_id.js';
import * as consoleSessions from './20270205000000_console_sessions.js';
import * as apiKeyExpiry from './20270210000000_api_key_expiry.js';
import * as apiKeyConsoleSession from './20270221000000_api_key_console_session.js';
import * as activityEntryIndex from './20270222000000_activity_entry_index.js';
import * as agentChanges from './20270230000000_agent_changes.js';
import * as budgetSlices from './20270301000000_budget_slices.js';
import * as openaiResponses from './20270305000000_openai_responses.js';
import * as a2aTasks from './20270306000000_a2a_tasks.js';
import * as mcpOauth from './20270307000000_mcp_oauth.js';
import * as documentMcpRead from './20270310000000_document_mcp_read.js';
import * as channels from './20270312000000_channels.js';
import * as mailgunTokens from './20270314000000_mailgun_tokens.js';
import * as oauthBounds from './20270320000000_oauth_bounds.js';
import * as channelIntakeQuota from './20270321000000_channel_intake_quota.js';
import * as messageAnswerTo from './20270322000000_message_answer_to.js';
import * as surfaceCallers from './20270323000000_surface_callers.js';
import * as fairClaimServed from './20270325000000_fair_claim_served.js';
import * as agentHandles from './20270401000000_agent_handles.js';
import * as keyOrigin from './20270402000000_key_origin.js';
import * as activityProtocol from './20270403000000_activity_protocol.js';
import * as creditUsageOutlivesAgent from './20270404000000_credit_usage_outlives_agent.js';
import * as accounts from './20270410000000_accounts.js';
import * as ssoIdentities from './20270411000000_sso_identities.js';
import * as invitations from './20270412000000_invitations.js';
import * as personTokens from './20270413000000_person_tokens.js';
import * as runTraces from './20270420000000_run_traces.js';
import * as activityPartitions from './20270421000000_activity_partitions.js';
import * as deliveryReceiptTrace from './20270422000000_delivery_receipt_trace.js';
import * as messageReceiptTrace from './20270423000000_message_receipt_trace.js';
import * as schedules from './20270424000000_schedules.js';
import * as eventSubscriptions from './20270425000000_event_subscriptions.js';
import * as approvals from './20270426000000_approvals.js';

// Migrations are listed here, in order, by name without extension, so that one database works
// from tsx and from compiled JavaScript alike.
const migrations: Record<string, Knex.Migration> = {
  '20261122000000_initial': initial,
  '20261205000000_credit_reservations': creditReservations,
  '20261210000000_mcp_output_schema': mcpOutputSchema,
  '20261215000000_webhook_deliveries': webhookDeliveries,
  '20261220000000_chat_visitors': chatVisitors,
  '20261225000000_http_endpoint_schemas': httpEndpointSchemas,
  '20261230000000_change_notifications': changeNotifications,
  '20270105000000_numbered_slots': numberedSlots,
  '20270110000000_message_day_counts': messageDayCounts,
  '20270115000000_activity_request_id': activityRequestId,
  '20270120000000_webhook_body_bounds': webhookBodyBounds,
  '20270125000000_webhook_fair_claim': webhookFairClaim,
  '20270130000000_activity_run_id': activityRunId,
  '20270205000000_console_sessions': consoleSessions,
  '20270210000000_api_key_expiry': apiKeyExpiry,
  '20270221000000_api_key_console_session': apiKeyConsoleSession,
  '20270222000000_activity_entry_index': activityEntryIndex,
  '20270230000000_agent_changes': agentChanges,
  '20270301000000_budget_slices': budgetSlices,
  '20270305000000_openai_responses': openaiResponses,
  '20270306000000_a2a_tasks': a2aTasks,
  '20270307000000_mcp_oauth': mcpOauth,
  '20270310000000_document_mcp_read': documentMcpRead,
  '20270312000000_channels': channels,
  '20270314000000_mailgun_tokens': mailgunTokens,
  '20270320000000_oauth_bounds': oauthBounds,
  '20270321000000_channel_intake_quota': channelIntakeQuota,
  '20270322000000_message_answer_to': messageAnswerTo,
  '20270323000000_surface_callers': surfaceCallers,
  '20270325000000_fair_claim_served': fairClaimServed,
  '20270401000000_agent_handles': agentHandles,
  '20270402000000_key_origin': keyOrigin,
  '20270403000000_activity_protocol': activityProtocol,
  '20270404000000_credit_usage_outlives_agent': creditUsageOutlivesAgent,
  '20270410000000_accounts': accounts,
  '20270411000000_sso_identities': ssoIdentities,
  '20270412000000_invitations': invitations,
  '20270413000000_person_tokens': personTokens,
  '20270420000000_run_traces': runTraces,
  '20270421000000_activity_partitions': activityPartitions,
  '20270422000000_delivery_receipt_trace': deliveryReceiptTrace,
  '20270423000000_message_receipt_trace': messageReceiptTrace,
  '20270424000000_schedules': schedules,
  '20270425000000_event_subscriptions': eventSubscriptions,
  '20270426000000_approvals': approvals,
};

/** knex migration source over the static list above. */
export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const m = migrations[name];
    if (!m) throw new Error(`unknown migration ${name}`);
    return m;
  },
};
