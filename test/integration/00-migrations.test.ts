import { expect } from 'chai';
import type { Knex } from 'knex';
import {
  DEFAULT_CAPABILITIES,
  DEFAULT_CORS,
  DEFAULT_GUARDRAILS,
  defaultSurfaces,
} from '../../src/domain/agents/agent.schemas.js';
import { Conflict } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import type { ModelConfig } from '../../src/domain/models/model.entities.js';
import { DEFAULT_SETTINGS } from '../../src/domain/workspace/settings.js';
import { closeDatabase, openDatabase } from '../../src/infra/db.js';
import { migrateLatest, migrateRollbackAll } from '../../src/infra/migrate.js';
import { knexStore } from '../../src/infra/store/knex-store.js';
import { migrationSource } from '../../migrations/index.js';

// Runs the migrations up → down → up on a database of its own (a separate PGlite instance, or a
// separate schema of the test PostgreSQL), so the shared test database is not disturbed, and looks
// at the schema the database reports: tables and columns, keys, constraints and indexes.

/** Every table of the data model with its columns, in order. */
/** Primary keys other than `id`: credit usage and day counts are one row per key and day. */
const PRIMARY_KEYS: Record<string, string> = {
  // Partitioned on created_at: a unique key must hold the partition key.
  activity_log: 'id, created_at',
  credit_usage: 'agent_id, day',
  approval_policies: 'agent_id',
  message_day_counts: 'agent_id, day, direction, channel',
  oauth_records: 'model, id',
  oauth_registration_counts: 'address, window_start',
  message_attachments: 'message_id, "position"',
  channel_intake_days: 'channel_id, day',
  schedule_fires: 'schedule_id, occurrence_at',
  agent_queue_serves: 'queue, agent_id',
  event_delivery_attempts: 'delivery_id, attempt',
};

const COLUMNS: Record<string, string> = {
  event_subscriptions:
    'id workspace_id url kinds agent_id description secret_ciphertext enabled failure_streak disabled_at disabled_reason created_at updated_at',
  event_deliveries:
    'id subscription_id workspace_id event_id kind payload state attempts failures next_attempt_at locked_until last_status last_response replay_of created_at updated_at completed_at',
  event_delivery_attempts: 'delivery_id attempt status response duration_ms at',
  account_identities: 'id account_id issuer subject email created_at',
  accounts: 'id email name password_hash operator last_workspace_id failed_sign_ins locked_until created_at updated_at',
  a2a_tasks: 'id agent_id context_id state task created_at updated_at caller_ref',
  activity_log:
    'id workspace_id agent_id kind surface entry method path status request_headers request_body response truncated credits duration_ms key_id run_id error logs created_at request_id oauth_client_id granted_by protocol delivery_id trace_id spans',
  approval_policies: 'agent_id tools approver_role expiry_seconds updated_at',
  approvals:
    'id workspace_id agent_id run_id surface tool_name tool_call_id arguments resume approver_role state expires_at decided_by decided_at reason result created_at',
  agent_changes: 'id workspace_id agent_id member_id source changes created_at',
  agent_queue_serves: 'queue agent_id claim_no claim_rank',
  agents:
    'id workspace_id team_id created_by name description instructions default_model visibility allow_workspace_keys surfaces cors capabilities guardrails daily_credit_limit max_concurrent_requests created_at updated_at slug',
  api_keys:
    'id workspace_id agent_id kind name key_hash prefix last4 scopes created_by created_at last_used_at revoked_at expires_at console_session_id origin',
  channels:
    'id agent_id kind address handler_kind handler_body model_override allowed_senders auto_reply created_at updated_at',
  chat_turns: 'id conversation_id role content run_id created_at',
  console_sessions: 'id member_id token_id session_hash created_at last_seen_at revoked_at account_id method',
  conversations: 'id agent_id created_at updated_at visitor_id',
  credit_usage: 'agent_id workspace_id team_id day credits runs max_run_credits',
  document_exposures: 'id agent_id document_id can_read can_write created_at mcp_read',
  document_records: 'id document_id seq data created_at updated_at',
  documents: 'id workspace_id agent_id name description kind content fields created_at updated_at',
  http_endpoints:
    'id agent_id path path_shape methods handler_kind handler_body model_override description created_at updated_at input_schema output_schema',
  mcp_tools:
    'id agent_id name description handler_kind handler_body model_override input_schema created_at updated_at output_schema',
  member_tokens: 'id member_id name token_hash prefix last4 created_at last_used_at revoked_at scope',
  mcp_grants:
    'id workspace_id agent_id member_id client_id client_name redirect_host created_at last_used_at member_token_id',
  mailgun_tokens: 'id expires_at',
  channel_intake_days: 'channel_id day messages bytes',
  invitations: 'id workspace_id email name role token_hash invited_by created_at expires_at accepted_at revoked_at',
  members: 'id workspace_id email name role created_at account_id',
  message_attachments: 'message_id position filename content_type size content',
  message_day_counts: 'agent_id day direction channel n',
  messages:
    'id workspace_id agent_id direction channel from_address to_address subject body sent_at created_at channel_id thread_id message_id in_reply_to status attempts failures next_attempt_at locked_until last_error run_id provider answer_to trace_parent',
  models:
    'id workspace_id name provider model base_url api_key_secret input_price_per_million output_price_per_million is_default created_at updated_at accepts_images',
  oauth_registration_counts: 'address window_start n',
  oauth_records: 'model id payload grant_id uid expires_at consumed_at',
  openai_responses: 'id agent_id previous_response_id context body created_at caller_ref chained',
  run_slots: 'id agent_id instance_id reserved_credits expires_at created_at workspace_id team_id slot_no budget',
  schedule_fires:
    'schedule_id occurrence_at agent_id state late claimed_by lease_until run_id error error_code error_reason created_at finished_at',
  schedules:
    'id workspace_id agent_id name cron time_zone interval_seconds handler_kind handler_body model_override input enabled catch_up overlap created_at updated_at',
  secrets: 'id workspace_id name kind ciphertext created_at updated_at',
  teams: 'id workspace_id name daily_credit_limit created_at',
  webhook_deliveries:
    'id agent_id webhook_id integration sender_delivery_id dedupe_key replay_of method path query headers raw_body status attempts failures last_error run_id next_attempt_at locked_until created_at updated_at completed_at body_dropped_at receipt_trace',
  webhooks:
    'id agent_id integration handler_kind handler_body model_override signature_scheme signature_secret_name created_at updated_at max_body_bytes',
  workspaces: 'id name settings daily_credit_limit created_at updated_at slug',
};

/** Unique constraints by name: the error translation (pg-errors.ts) names several of them. */
const UNIQUE = [
  'account_identities_issuer_subject_unique UNIQUE (issuer, subject)',
  'agents_workspace_id_slug_unique UNIQUE (workspace_id, slug)',
  'api_keys_key_hash_unique UNIQUE (key_hash)',
  'channels_kind_address_unique UNIQUE (kind, address)',
  'console_sessions_session_hash_unique UNIQUE (session_hash)',
  'document_exposures_agent_id_document_id_unique UNIQUE (agent_id, document_id)',
  'http_endpoints_agent_id_path_shape_unique UNIQUE (agent_id, path_shape)',
  'mcp_tools_agent_id_name_unique UNIQUE (agent_id, name)',
  'invitations_token_hash_unique UNIQUE (token_hash)',
  'member_tokens_token_hash_unique UNIQUE (token_hash)',
  'members_workspace_id_email_unique UNIQUE (workspace_id, email)',
  'messages_dedupe_unique UNIQUE (agent_id, channel_id, direction, message_id)',
  'models_workspace_id_name_unique UNIQUE (workspace_id, name)',
  'run_slots_agent_slot_no_unique UNIQUE (agent_id, slot_no)',
  'schedules_agent_name_unique UNIQUE (agent_id, name)',
  'secrets_workspace_id_name_unique UNIQUE (workspace_id, name)',
  'teams_workspace_id_name_unique UNIQUE (workspace_id, name)',
  'webhook_deliveries_dedupe_unique UNIQUE (webhook_id, dedupe_key)',
  'webhooks_agent_id_integration_unique UNIQUE (agent_id, integration)',
];

const CHECKS = [
  'agent_queue_serves_queue_check',
  'agents_visibility_check',
  'api_keys_kind_check',
  'api_keys_origin_check',
  'approval_policies_approver_role_check',
  'approvals_approver_role_check',
  'approvals_state_check',
  'channels_kind_check',
  'console_sessions_method_check',
  'documents_kind_check',
  'invitations_role_check',
  'member_tokens_scope_check',
  'members_role_check',
  'messages_channel_check',
  'messages_direction_check',
  'messages_status_check',
  'schedule_fires_state_check',
  'schedules_overlap_check',
  'schedules_timing_check',
  'webhook_deliveries_status_check',
];

const FOREIGN_KEYS = [
  'account_identities FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE',
  'accounts FOREIGN KEY (last_workspace_id) REFERENCES workspaces(id) ON DELETE SET NULL',
  'console_sessions FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE',
  'members FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE',
  'invitations FOREIGN KEY (invited_by) REFERENCES members(id) ON DELETE SET NULL',
  'invitations FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'a2a_tasks FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'activity_log FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'activity_log FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'agent_changes FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'agent_queue_serves FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'agent_changes FOREIGN KEY (member_id) REFERENCES members(id) ON DELETE SET NULL',
  'agent_changes FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'agents FOREIGN KEY (team_id) REFERENCES teams(id) ON DELETE SET NULL',
  'agents FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'api_keys FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'api_keys FOREIGN KEY (console_session_id) REFERENCES console_sessions(id) ON DELETE SET NULL',
  'api_keys FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'approval_policies FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'approvals FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'approvals FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'channels FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'chat_turns FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE',
  'console_sessions FOREIGN KEY (member_id) REFERENCES members(id) ON DELETE CASCADE',
  'console_sessions FOREIGN KEY (token_id) REFERENCES member_tokens(id) ON DELETE CASCADE',
  'conversations FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'credit_usage FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'document_exposures FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'document_exposures FOREIGN KEY (document_id) REFERENCES documents(id) ON DELETE CASCADE',
  'document_records FOREIGN KEY (document_id) REFERENCES documents(id) ON DELETE CASCADE',
  'documents FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'event_deliveries FOREIGN KEY (subscription_id) REFERENCES event_subscriptions(id) ON DELETE CASCADE',
  'event_delivery_attempts FOREIGN KEY (delivery_id) REFERENCES event_deliveries(id) ON DELETE CASCADE',
  'event_subscriptions FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'event_subscriptions FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'documents FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'http_endpoints FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'mcp_grants FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'mcp_grants FOREIGN KEY (member_id) REFERENCES members(id) ON DELETE CASCADE',
  'mcp_grants FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'mcp_tools FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'member_tokens FOREIGN KEY (member_id) REFERENCES members(id) ON DELETE CASCADE',
  'members FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'message_attachments FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE CASCADE',
  'channel_intake_days FOREIGN KEY (channel_id) REFERENCES channels(id) ON DELETE CASCADE',
  'message_day_counts FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'messages FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'messages FOREIGN KEY (channel_id) REFERENCES channels(id) ON DELETE SET NULL',
  'messages FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'models FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'openai_responses FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'run_slots FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'run_slots FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'schedule_fires FOREIGN KEY (schedule_id) REFERENCES schedules(id) ON DELETE CASCADE',
  'schedules FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'schedules FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'secrets FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'teams FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE',
  'webhook_deliveries FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
  'webhook_deliveries FOREIGN KEY (webhook_id) REFERENCES webhooks(id) ON DELETE CASCADE',
  'webhooks FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE',
];

/** Indexes besides those of primary keys and unique constraints (the list queries and filters use them). */
const INDEXES = [
  'CREATE INDEX approvals_agent_id_state_index ON approvals USING btree (agent_id, state)',
  'CREATE INDEX approvals_run_id_index ON approvals USING btree (run_id)',
  'CREATE INDEX approvals_workspace_id_state_created_at_index ON approvals USING btree (workspace_id, state, created_at)',
  'CREATE INDEX account_identities_account_id_index ON account_identities USING btree (account_id)',
  'CREATE UNIQUE INDEX accounts_email_unique ON accounts USING btree (lower(email))',
  'CREATE UNIQUE INDEX workspaces_slug_unique ON workspaces USING btree (slug)',
  'CREATE UNIQUE INDEX members_workspace_account_unique ON members USING btree (workspace_id, account_id)',
  'CREATE INDEX members_account_id_index ON members USING btree (account_id)',
  'CREATE INDEX invitations_workspace_id_created_at_index ON invitations USING btree (workspace_id, created_at)',
  'CREATE UNIQUE INDEX invitations_pending_unique ON invitations USING btree (workspace_id, lower(email)) WHERE ((accepted_at IS NULL) AND (revoked_at IS NULL))',
  'CREATE INDEX a2a_tasks_agent_id_caller_ref_updated_at_index ON a2a_tasks USING btree (agent_id, caller_ref, updated_at)',
  'CREATE INDEX a2a_tasks_agent_id_context_id_index ON a2a_tasks USING btree (agent_id, context_id)',
  'CREATE INDEX a2a_tasks_agent_id_updated_at_id_index ON a2a_tasks USING btree (agent_id, updated_at, id)',
  'CREATE INDEX a2a_tasks_state_updated_at_index ON a2a_tasks USING btree (state, updated_at)',
  'CREATE INDEX activity_log_agent_id_created_at_id_index ON ONLY activity_log USING btree (agent_id, created_at, id)',
  'CREATE INDEX activity_log_agent_id_entry_created_at_id_index ON ONLY activity_log USING btree (agent_id, entry, created_at, id) WHERE (entry IS NOT NULL)',
  'CREATE INDEX activity_log_agent_id_kind_created_at_id_index ON ONLY activity_log USING btree (agent_id, kind, created_at, id)',
  'CREATE INDEX activity_log_agent_id_surface_created_at_id_index ON ONLY activity_log USING btree (agent_id, surface, created_at, id)',
  'CREATE INDEX activity_log_agent_id_surface_kind_created_at_id_index ON ONLY activity_log USING btree (agent_id, surface, kind, created_at, id)',
  'CREATE INDEX activity_log_created_at_index ON ONLY activity_log USING btree (created_at)',
  'CREATE INDEX activity_log_delivery_id_index ON ONLY activity_log USING btree (delivery_id) WHERE (delivery_id IS NOT NULL)',
  'CREATE INDEX activity_log_run_id_index ON ONLY activity_log USING btree (run_id) WHERE (run_id IS NOT NULL)',
  'CREATE INDEX agent_changes_agent_id_created_at_id_index ON agent_changes USING btree (agent_id, created_at, id)',
  'CREATE INDEX agents_team_id_index ON agents USING btree (team_id)',
  'CREATE INDEX agents_workspace_id_created_at_index ON agents USING btree (workspace_id, created_at)',
  'CREATE INDEX api_keys_agent_id_index ON api_keys USING btree (agent_id)',
  'CREATE INDEX api_keys_console_session_id_index ON api_keys USING btree (console_session_id)',
  'CREATE INDEX api_keys_workspace_id_kind_index ON api_keys USING btree (workspace_id, kind)',
  'CREATE INDEX channels_agent_id_index ON channels USING btree (agent_id)',
  'CREATE INDEX chat_turns_conversation_id_created_at_index ON chat_turns USING btree (conversation_id, created_at)',
  'CREATE INDEX console_sessions_token_id_index ON console_sessions USING btree (token_id)',
  'CREATE INDEX conversations_agent_id_updated_at_index ON conversations USING btree (agent_id, updated_at)',
  'CREATE INDEX credit_usage_team_id_day_index ON credit_usage USING btree (team_id, day)',
  'CREATE INDEX credit_usage_workspace_id_day_index ON credit_usage USING btree (workspace_id, day)',
  'CREATE INDEX document_records_data_gin ON document_records USING gin (data jsonb_path_ops)',
  'CREATE INDEX document_records_document_id_seq_index ON document_records USING btree (document_id, seq)',
  'CREATE INDEX documents_agent_id_index ON documents USING btree (agent_id)',
  'CREATE INDEX event_deliveries_due ON event_deliveries USING btree (next_attempt_at, subscription_id) WHERE (next_attempt_at IS NOT NULL)',
  'CREATE INDEX event_deliveries_finished ON event_deliveries USING btree (created_at) WHERE (next_attempt_at IS NULL)',
  'CREATE INDEX event_deliveries_subscription ON event_deliveries USING btree (subscription_id, created_at, id)',
  'CREATE INDEX event_subscriptions_workspace ON event_subscriptions USING btree (workspace_id, created_at)',
  'CREATE INDEX messages_agent_id_channel_sent_at_id_index ON messages USING btree (agent_id, channel, sent_at, id)',
  'CREATE INDEX messages_agent_id_direction_channel_sent_at_id_index ON messages USING btree (agent_id, direction, channel, sent_at, id)',
  'CREATE INDEX messages_agent_id_direction_sent_at_id_index ON messages USING btree (agent_id, direction, sent_at, id)',
  'CREATE INDEX messages_agent_id_sent_at_id_index ON messages USING btree (agent_id, sent_at, id)',
  'CREATE INDEX messages_channel_answer_to ON messages USING btree (channel_id, answer_to, created_at) WHERE (answer_to IS NOT NULL)',
  'CREATE INDEX messages_channel_sender ON messages USING btree (channel_id, from_address, created_at) WHERE (channel_id IS NOT NULL)',
  'CREATE INDEX messages_agent_due ON messages USING btree (agent_id, next_attempt_at, id) WHERE (next_attempt_at IS NOT NULL)',
  'CREATE INDEX messages_due ON messages USING btree (next_attempt_at) WHERE (next_attempt_at IS NOT NULL)',
  'CREATE INDEX messages_run ON messages USING btree (run_id) WHERE (run_id IS NOT NULL)',
  'CREATE INDEX messages_workspace_created ON messages USING btree (workspace_id, created_at)',
  'CREATE UNIQUE INDEX models_one_default ON models USING btree (workspace_id) WHERE is_default',
  'CREATE INDEX openai_responses_agent_id_created_at_index ON openai_responses USING btree (agent_id, created_at)',
  'CREATE INDEX openai_responses_created_at_index ON openai_responses USING btree (created_at)',
  'CREATE INDEX run_slots_agent_id_expires_at_index ON run_slots USING btree (agent_id, expires_at)',
  'CREATE INDEX run_slots_team_id_expires_at_index ON run_slots USING btree (team_id, expires_at)',
  'CREATE INDEX run_slots_workspace_id_expires_at_index ON run_slots USING btree (workspace_id, expires_at)',
  "CREATE UNIQUE INDEX schedule_fires_one_queued ON schedule_fires USING btree (schedule_id) WHERE (state = 'QUEUED'::text)",
  "CREATE UNIQUE INDEX schedule_fires_one_running ON schedule_fires USING btree (schedule_id) WHERE (state = 'RUNNING'::text)",
  'CREATE INDEX webhook_deliveries_agent_list ON webhook_deliveries USING btree (agent_id, created_at, id)',
  "CREATE INDEX webhook_deliveries_agent_pending ON webhook_deliveries USING btree (agent_id, next_attempt_at, id) WHERE (status = 'PENDING'::text)",
  "CREATE INDEX webhook_deliveries_body_kept ON webhook_deliveries USING btree (completed_at) WHERE ((body_dropped_at IS NULL) AND (status = ANY (ARRAY['DONE'::text, 'FAILED'::text])))",
  'CREATE INDEX webhook_deliveries_due ON webhook_deliveries USING btree (status, next_attempt_at)',
  'CREATE INDEX mcp_grants_agent_id_created_at_id_index ON mcp_grants USING btree (agent_id, created_at, id)',
  'CREATE INDEX mcp_grants_member_id_index ON mcp_grants USING btree (member_id)',
  'CREATE INDEX mcp_grants_member_token_id_index ON mcp_grants USING btree (member_token_id)',
  'CREATE INDEX mailgun_tokens_expires_at_index ON mailgun_tokens USING btree (expires_at)',
  'CREATE INDEX oauth_records_expires_at_index ON oauth_records USING btree (expires_at)',
  'CREATE INDEX oauth_records_grant_id_index ON oauth_records USING btree (grant_id)',
  'CREATE INDEX oauth_records_uid_index ON oauth_records USING btree (uid)',
  'CREATE INDEX oauth_registration_counts_window_start_index ON oauth_registration_counts USING btree (window_start)',
];

interface Schema {
  /** `table: col col …` per table. */
  columns: Record<string, string>;
  /** Every column with its type, nullability and default. */
  columnDefs: string[];
  /** `table name kind definition` for every constraint except NOT NULL (covered by columnDefs). */
  constraints: string[];
  /** Index definitions, without the schema name. */
  indexes: string[];
  /** Every relation (table, index, sequence, view) with its kind. */
  relations: string[];
}

/** The schema of the current search path as the database describes it; knex's own tables left out. */
async function schemaOf(db: Knex): Promise<Schema> {
  const rows = async (sql: string) => (await db.raw(sql)).rows as Record<string, string>[];
  // The activity log's partitions (and their indexes) are described by their parent; their names
  // carry the day the migration ran. partitionsOf lists them.
  const notKnex = (col: string) =>
    `${col} not like 'knex\\_%' and ${col} not in (select relname::text from pg_class where relispartition and relnamespace = current_schema()::text::regnamespace)`;
  const cols = await rows(
    `select table_name as t, column_name as c, data_type || case when is_nullable = 'NO' then ' not null' else '' end || coalesce(' default ' || column_default, '') as d
     from information_schema.columns where table_schema = current_schema() and ${notKnex('table_name')} order by table_name, ordinal_position`,
  );
  const columns: Record<string, string> = {};
  for (const r of cols) columns[r.t!] = columns[r.t!] ? `${columns[r.t!]} ${r.c}` : r.c!;
  const constraints = await rows(
    `select conrelid::regclass::text || ' ' || conname || ' ' || contype::text || ' ' || pg_get_constraintdef(oid) as d from pg_constraint
     where connamespace = current_schema()::text::regnamespace and contype <> 'n' and ${notKnex('conrelid::regclass::text')} order by 1`,
  );
  const indexes = await rows(
    `select replace(replace(indexdef, ' ON ' || current_schema() || '.', ' ON '), ' ON ONLY ' || current_schema() || '.', ' ON ONLY ') as d from pg_indexes
     where schemaname = current_schema() and ${notKnex('tablename')} order by indexname`,
  );
  const relations = await rows(
    `select relname::text || ' ' || relkind::text as d from pg_class where relnamespace = current_schema()::text::regnamespace and ${notKnex('relname')} order by 1`,
  );
  // Sorted here: the database's collation orders `_` differently on PostgreSQL and PGlite.
  return {
    columns,
    columnDefs: cols.map((r) => `${r.t}.${r.c} ${r.d}`).sort(),
    constraints: constraints.map((r) => r.d!).sort(),
    indexes: indexes.map((r) => r.d!).sort(),
    relations: relations.map((r) => r.d!).sort(),
  };
}

/** The activity log's partitions, by name. */
async function partitionsOf(db: Knex): Promise<string[]> {
  const r = await db.raw(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = to_regclass('activity_log') order by 1`,
  );
  return (r.rows as { name: string }[]).map((x) => x.name);
}

describe('migrations', function () {
  this.timeout(60_000);
  let db: Knex;
  const schema = 'migration_check';
  let afterUp: Schema;

  before(async () => {
    const url = process.env.TEST_DATABASE_URL || undefined;
    if (url) {
      const admin = await openDatabase({ databaseUrl: url });
      await admin.raw(`drop schema if exists ${schema} cascade`);
      await admin.raw(`create schema ${schema}`);
      await closeDatabase(admin);
    }
    db = await openDatabase({ databaseUrl: url, dataDir: 'memory', searchPath: url ? schema : undefined });
  });
  after(async () => {
    if (process.env.TEST_DATABASE_URL) await db.raw(`drop schema if exists ${schema} cascade`);
    await closeDatabase(db);
  });

  it('up: every table of the data model with its columns, keys, constraints and indexes', async () => {
    const migratedAt = Date.now();
    await migrateLatest(db);
    afterUp = await schemaOf(db);
    expect(afterUp.columns).to.deep.equal(COLUMNS);
    const kind = (k: string) => afterUp.constraints.filter((c) => c.split(' ')[2] === k);
    const byName = (k: string) =>
      kind(k).map((c) =>
        c
          .split(' ')
          .slice(1)
          .filter((_, i) => i !== 1)
          .join(' '),
      );
    expect(byName('u').sort()).to.deep.equal([...UNIQUE].sort());
    expect(
      kind('c')
        .map((c) => c.split(' ')[1])
        .sort(),
    ).to.deep.equal([...CHECKS].sort());
    expect(
      kind('f')
        .map((c) =>
          c
            .split(' ')
            .filter((_, i) => i !== 1 && i !== 2)
            .join(' '),
        )
        .sort(),
    ).to.deep.equal([...FOREIGN_KEYS].sort());
    // A primary key on every table: `id`, except credit usage (one row per agent and day).
    expect(
      kind('p')
        .map((c) => `${c.split(' ')[0]} ${c.split(' ').slice(3).join(' ')}`)
        .sort(),
    ).to.deep.equal(
      Object.keys(COLUMNS)
        .map((t) => `${t} PRIMARY KEY (${PRIMARY_KEYS[t] ?? 'id'})`)
        .sort(),
    );
    expect(kind('x')).to.deep.equal([]);
    const secondary = afterUp.indexes.filter(
      (d) => !/_pkey ON /.test(d) && !UNIQUE.some((u) => d.includes(` ${u.split(' ')[0]} ON `)),
    );
    expect(secondary).to.deep.equal([...INDEXES].sort());
    // The activity log: the table as it was is the first partition (everything before two days
    // ahead), then one partition per UTC day.
    const day = (d: number) => {
      const t = new Date((Math.floor(migratedAt / 86_400_000) + d) * 86_400_000);
      return `activity_log_p${t.toISOString().slice(0, 10).replace(/-/g, '')}`;
    };
    expect(await partitionsOf(db)).to.deep.equal(['activity_log_legacy', day(2), day(3), day(4)]);
    expect(afterUp.relations.filter((r) => r.endsWith(' S'))).to.deep.equal([
      'agent_queue_claims S',
      'document_records_seq_seq S',
    ]);
    expect(afterUp.columnDefs).to.include(
      "document_records.seq bigint not null default nextval('document_records_seq_seq'::regclass)",
    );
  });

  it('down: nothing the migrations created is left', async () => {
    await migrateRollbackAll(db);
    expect(await schemaOf(db)).to.deep.equal({
      columns: {},
      columnDefs: [],
      constraints: [],
      indexes: [],
      relations: [],
    });
  });

  it('up again: the same schema, and the repositories store and find data in it', async () => {
    await migrateLatest(db);
    expect(await schemaOf(db)).to.deep.equal(afterUp);

    const { repos } = knexStore(db);
    const now = new Date('2026-01-02T03:04:05Z');
    const ws = await repos.workspaces.insert({
      id: newId('ws'),
      name: 'Migrated',
      slug: 'migrated',
      settings: DEFAULT_SETTINGS,
      dailyCreditLimit: 5,
      createdAt: now,
      updatedAt: now,
    });
    expect(await repos.workspaces.get(ws.id)).to.deep.equal({
      id: ws.id,
      name: 'Migrated',
      slug: 'migrated',
      settings: DEFAULT_SETTINGS,
      dailyCreditLimit: 5,
      createdAt: now,
      updatedAt: now,
    });
    const agent = await repos.agents.insert({
      id: newId('agt'),
      workspaceId: ws.id,
      teamId: null,
      createdBy: null,
      name: 'Agent',
      slug: 'agent',
      description: '',
      instructions: '',
      defaultModel: null,
      visibility: 'WORKSPACE',
      allowWorkspaceKeys: false,
      surfaces: defaultSurfaces(),
      cors: DEFAULT_CORS,
      capabilities: DEFAULT_CAPABILITIES,
      guardrails: DEFAULT_GUARDRAILS,
      dailyCreditLimit: null,
      maxConcurrentRequests: 2,
      createdAt: now,
      updatedAt: now,
    });
    const doc = await repos.documents.insert({
      id: newId('doc'),
      workspaceId: ws.id,
      agentId: agent.id,
      name: 'tasks',
      description: '',
      kind: 'DATABASE',
      content: '',
      fields: [],
      createdAt: now,
      updatedAt: now,
    });
    await repos.records.insertMany(
      doc.id,
      [
        { id: 'rec_1', data: { title: 'a', done: false } },
        { id: 'rec_2', data: { title: 'b', done: true } },
      ],
      now,
    );
    expect(
      await repos.records.query(
        doc.id,
        { done: [{ op: 'in', type: 'BOOLEAN', values: [true] }] },
        { limit: 10, offset: 0 },
      ),
    ).to.deep.equal({ records: [{ id: 'rec_2', title: 'b', done: true }], totalCount: 1 });

    // The constraint the error translation names is back: a second model of the same name is a Conflict.
    const model: ModelConfig = {
      id: newId('mdl'),
      workspaceId: ws.id,
      name: 'main',
      provider: 'openai',
      model: 'gpt-4o-mini',
      baseUrl: null,
      apiKeySecret: null,
      inputPricePerMillion: 1,
      outputPricePerMillion: 2,
      isDefault: false,
      acceptsImages: false,
      createdAt: now,
      updatedAt: now,
    };
    await repos.models.insert(model);
    const duplicate = await repos.models.insert({ ...model, id: newId('mdl') }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(duplicate).to.be.instanceOf(Conflict);
    expect((duplicate as Conflict).message).to.equal('A model with that name already exists');

    await repos.slots.insert({
      id: newId('slot'),
      agentId: agent.id,
      workspaceId: ws.id,
      teamId: null,
      instanceId: 'migrated',
      reservedCredits: 0.25,
      expiresAt: new Date(now.getTime() + 1_000),
    });
    expect(await repos.slots.countActive(agent.id, now)).to.equal(1);
    expect(await repos.slots.reserved({ workspaceId: ws.id }, now)).to.equal(0.25);
    await repos.usage.charge({ agentId: agent.id, workspaceId: ws.id, teamId: null, day: '2026-01-02', credits: 1.5 });
    expect(await repos.usage.agentDay(agent.id, '2026-01-02')).to.equal(1.5);
  });

  it('agent handles: existing agents get the slug their name gives, oldest first, made unique per workspace', async () => {
    const handles = { migrationSource, tableName: 'knex_migrations', name: '20270401000000_agent_handles' };
    await db.migrate.down(handles);
    const [row] = await db('agents').select('*');
    // Rows as an earlier release wrote them: JSON columns as text, whatever the driver gave back.
    const asRow = (o: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(o).map(([k, v]) => [
          k,
          v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v,
        ]),
      );
    const copy = (id: string, name: string, createdAt: string, workspaceId = row.workspace_id) =>
      asRow({ ...row, id, name, workspace_id: workspaceId, created_at: new Date(createdAt) });
    const [other] = await db('workspaces').select('*');
    await db('workspaces').insert(asRow({ ...other, id: 'ws_other', slug: 'other' }));
    await db('agents').insert([
      copy('agt_new', 'Support bot', '2026-03-01T00:00:00Z'),
      copy('agt_old', 'Support bot', '2026-02-01T00:00:00Z'),
      copy('agt_accent', 'Café Bot', '2026-02-02T00:00:00Z'),
      copy('agt_none', '!!!', '2026-02-03T00:00:00Z'),
      copy('agt_else', 'Support bot', '2026-04-01T00:00:00Z', 'ws_other'),
    ]);
    await migrateLatest(db);
    const slugs = Object.fromEntries(
      ((await db('agents').select('id', 'slug')) as { id: string; slug: string }[]).map((a) => [a.id, a.slug]),
    );
    expect(slugs).to.deep.equal({
      [row.id]: 'agent',
      agt_old: 'support-bot',
      agt_new: 'support-bot-2',
      agt_accent: 'cafe-bot',
      agt_none: 'agent-2',
      agt_else: 'support-bot',
    });
    expect(await schemaOf(db)).to.deep.equal(afterUp);
    await db('agents').whereIn('id', ['agt_new', 'agt_old', 'agt_accent', 'agt_none', 'agt_else']).delete();
    await db('workspaces').where({ id: 'ws_other' }).delete();
  });

  it('a second latest changes nothing: same schema, data kept; deleting the workspace cascades', async () => {
    await migrateLatest(db);
    expect(await schemaOf(db)).to.deep.equal(afterUp);
    const [ws] = await db('workspaces').select('id');
    const [doc] = await db('documents').select('id');
    const { repos } = knexStore(db);
    expect((await repos.records.query(doc.id, {}, { limit: 10, offset: 0 })).totalCount).to.equal(2);
    expect(await repos.workspaces.delete(ws.id)).to.equal(true);
    for (const table of ['agents', 'documents', 'document_records', 'models', 'run_slots', 'credit_usage']) {
      expect(Number((await db(table).count<{ n: number }[]>('* as n'))[0]!.n), table).to.equal(0);
    }
  });
});
