import type { AccountIdentityRepo } from './accounts/sso.ports.js';
import type { InvitationRepo } from './accounts/account.ports.js';
import type { ActivityRepo } from './activity/activity.ports.js';
import type { SlotRepo, UsageRepo } from './admission/admission.ports.js';
import type { AgentRepo } from './agents/agent.ports.js';
import type { ConversationRepo } from './chat/chat.ports.js';
import type { ConsoleSessionRepo } from './console/session.ports.js';
import type { DocumentRepo, ExposureRepo, RecordRepo } from './documents/document.ports.js';
import type { HttpEndpoint, McpTool, Webhook } from './entries/entry.entities.js';
import type { Channel } from './entries/channel.entities.js';
import type { ApiKeyRepo } from './keys/key.ports.js';
import type { AgentChangeRepo } from './manifests/manifest.ports.js';
import type { MessageRepo } from './messages/message.ports.js';
import type { ChannelRepo } from './channels/channel.ports.js';
import type { ModelRepo } from './models/model.ports.js';
import type { AgentChildRepo } from './repo.ports.js';
import type { SecretRepo } from './secrets/secret.ports.js';
import type { ResponseRepo } from './surfaces/openai.ports.js';
import type { ApprovalRepo } from './approvals/approval.ports.js';
import type { A2aTaskRepo } from './surfaces/a2a/a2a.ports.js';
import type { McpGrantRepo } from './mcp-oauth/mcp-grant.entities.js';
import type { DeliveryRepo } from './webhooks/webhook.ports.js';
import type { EventDeliveryRepo, EventSubscriptionRepo } from './events/event.ports.js';
import type { ScheduleRepo } from './schedules/schedule.ports.js';
import type { WorkspaceReadRepo } from './workspace-api/workspace-api.ports.js';
import type { AccountRepo, MemberRepo, MemberTokenRepo, TeamRepo, WorkspaceRepo } from './workspace/workspace.ports.js';

// The storage the domain talks to: every area's repositories, and transactions over them. src/infra
// implements it; nothing here knows about SQL.

export interface Repositories {
  workspaces: WorkspaceRepo;
  teams: TeamRepo;
  members: MemberRepo;
  /** People: one per email across the deployment. */
  accounts: AccountRepo;
  /** OpenID Connect identities (issuer + subject) linked to accounts. */
  accountIdentities: AccountIdentityRepo;
  /** Invitations of emails to workspaces (only their tokens' hashes). */
  invitations: InvitationRepo;
  memberTokens: MemberTokenRepo;
  consoleSessions: ConsoleSessionRepo;
  agents: AgentRepo;
  apiKeys: ApiKeyRepo;
  httpEndpoints: AgentChildRepo<HttpEndpoint>;
  mcpTools: AgentChildRepo<McpTool>;
  webhooks: AgentChildRepo<Webhook>;
  /** Email addresses and SMS numbers of agents. */
  channels: ChannelRepo;
  deliveries: DeliveryRepo;
  /** Outbound event webhooks: the workspace's subscriptions (cached: every emission reads them). */
  eventSubscriptions: EventSubscriptionRepo;
  /** Outbound events stored for their subscriptions, and the queue that sends them. */
  eventDeliveries: EventDeliveryRepo;
  /** Agents' schedules and their fires. */
  schedules: ScheduleRepo;
  conversations: ConversationRepo;
  /** Stored responses of the OpenAI-compatible API. */
  responses: ResponseRepo;
  /** Tasks of the A2A server. */
  a2aTasks: A2aTaskRepo;
  /** Tool calls waiting for a person, and agents' approval policies (issue 54). */
  approvals: ApprovalRepo;
  /** Members' approvals of OAuth clients for agents' MCP servers. */
  mcpGrants: McpGrantRepo;
  documents: DocumentRepo;
  exposures: ExposureRepo;
  records: RecordRepo;
  secrets: SecretRepo;
  models: ModelRepo;
  messages: MessageRepo;
  activity: ActivityRepo;
  agentChanges: AgentChangeRepo;
  usage: UsageRepo;
  slots: SlotRepo;
  workspaceRead: WorkspaceReadRepo;
}

/** Storage: repositories outside a transaction, and a way to run work in one. */
export interface Store {
  readonly repos: Repositories;
  /** Runs `fn` in one transaction; everything it writes commits or rolls back together. */
  transaction<T>(fn: (repos: Repositories) => Promise<T>): Promise<T>;
  ping(): Promise<boolean>;
}
