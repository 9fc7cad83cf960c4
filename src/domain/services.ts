import type { SpanExport } from './tracing/trace.ports.js';
import { messagingTools } from './channels/messaging.tools.js';
import { callLifecycleOf } from './calls/call-lifecycle-of.js';
import type { CancelChannel } from './calls/call-cancel.ports.js';
import { CallLifecycle } from './calls/call-lifecycle.js';
import { ActivityService } from './activity/activity.service.js';
import { ActivityLog, type ActivitySink } from './activity/activity-log.js';
import { AdmissionService, DEFAULT_ADMISSION, type AdmissionConfig } from './admission/admission.service.js';
import { AgentService } from './agents/agent.service.js';
import type { Clock } from './clock.js';
import { type SignInRules, ConsoleSessionService } from './console/session.service.js';
import { WorkspaceSignInRules } from './console/sign-in-rules.js';
import { SsoService } from './console/sso.service.js';
import type { SsoProvider } from './accounts/sso.ports.js';
import { DocumentService } from './documents/document.service.js';
import { RecordService } from './documents/record.service.js';
import { EntryService } from './entries/entry.service.js';
import { HealthService } from './health/health.service.js';
import { ScriptCheck } from './entries/script-check.js';
import { KeyService } from './keys/key.service.js';
import { ManifestService } from './manifests/manifest.service.js';
import { MessageService } from './messages/message.service.js';
import { ModelService } from './models/model.service.js';
import type { ChargeSink } from './admission/admission.ports.js';
import type { Store } from './ports.js';
import type { Cipher } from './secrets/secret.ports.js';
import type { ModelDefaults } from './models/model-resolver.js';
import { ModelReferences } from './models/model-references.js';
import type { LanguageModels } from './models/language-model.ports.js';
import { McpOAuthService } from './mcp-oauth/mcp-oauth.service.js';
import type { OAuthTokenReader } from './mcp-oauth/mcp-oauth.ports.js';
import type { RunMetrics } from './runtime/run-metrics.ports.js';
import type { ScriptLimits, ScriptSandbox } from './core/sandbox.ports.js';
import { Pipeline } from './runtime/pipeline.js';
import { RunService } from './runtime/run.service.js';
import { ApprovalService } from './approvals/approval.service.js';
import { EndpointManagementService } from './endpoint-management/endpoint-management.service.js';
import { SecretService } from './secrets/secret.service.js';
import { DocumentApiService } from './surfaces/document-api.service.js';
import { HttpApiService } from './surfaces/http-api.service.js';
import { McpService } from './surfaces/mcp.service.js';
import { McpGrantService } from './mcp-oauth/mcp-grant.service.js';
import { McpResourceService } from './surfaces/mcp-resources.js';
import { OpenAiService } from './surfaces/openai.service.js';
import { A2aService } from './surfaces/a2a.service.js';
import { SurfaceAccess } from './surfaces/surface-access.js';
import { WorkspaceApiService } from './workspace-api/workspace-api.service.js';
import { WorkspaceService } from './workspace/workspace.service.js';
import { AccountService, type PlatformOptions } from './accounts/account.service.js';
import type { PasswordHasher } from './accounts/account.ports.js';
import { TenantService } from './workspace/tenant.service.js';
import { InvitationService } from './accounts/invitation.service.js';
import { MembershipService } from './workspace/membership.service.js';
import { ChatService } from './surfaces/chat.service.js';
import { DeliveryBodyService } from './webhooks/delivery-body.service.js';
import { WebhookDeliveriesService } from './webhooks/webhook-deliveries.service.js';
import { ScheduleService } from './schedules/schedule.service.js';
import { WebhookDeliveryTask } from './webhooks/webhook-delivery.task.js';
import { WebhookReceiptService } from './webhooks/webhook-receipt.service.js';
import type { QueueSignal } from './webhooks/webhook.ports.js';
import { ChannelMessageTask } from './channels/channel-message.task.js';
import { eventServicesOf, type EventDeps, type EventServices } from './events/event-services.js';
import { runEventsOf } from './events/event-emitters.js';
import type { ChannelQueueSignal, EmailSender, SmsProvider } from './channels/channel.ports.js';
import { NO_EMAIL, NO_SMS } from './channels/unconfigured.js';
import { SmsReceiptService } from './channels/sms-receipt.service.js';
import {
  DEFAULT_EMAIL_RECEIPT,
  EmailReceiptService,
  type EmailReceiptOptions,
} from './channels/email-receipt.service.js';

import type { ServiceDeps } from './service-deps.js';

/** Every use case of the domain, built once by the composition root. */
export interface Services extends EventServices {
  workspace: WorkspaceService;
  /** People: passwords, profiles, memberships; workspaces of the deployment and its operator. */
  accounts: AccountService;
  /** The workspace a tenant host (TENANT_BASE_URL) names. */
  tenants: TenantService;
  /** Invitations of people to a workspace by email. */
  invitations: InvitationService;
  /** An admin's changes to members: roles, removal. */
  memberships: MembershipService;
  agents: AgentService;
  keys: KeyService;
  consoleSessions: ConsoleSessionService;
  /** Console sign-in by OpenID Connect (single sign-on). */
  sso: SsoService;
  entries: EntryService;
  documents: DocumentService;
  endpointManagement: EndpointManagementService;
  records: RecordService;
  secrets: SecretService;
  models: ModelService;
  messages: MessageService;
  activity: ActivityService;
  runs: RunService;
  /** Human approval of risky tool calls (issue 54). */
  approvals: ApprovalService;
  admission: AdmissionService;
  activityLog: ActivityLog;
  pipeline: Pipeline;
  /** Every surface call's lifecycle: the one writer of activity entries, and cancels from any instance. */
  calls: CallLifecycle;
  surfaces: SurfaceAccess;
  httpApi: HttpApiService;
  mcp: McpService;
  /** Members' approvals of OAuth clients for agents' MCP servers: list and revoke. */
  mcpGrants: McpGrantService;
  /** The agent's documents as resources of its MCP server. */
  mcpResources: McpResourceService;
  documentApi: DocumentApiService;
  deliveryBodies: DeliveryBodyService;
  /** Receives webhook callbacks and stores them as deliveries. */
  webhookReceipt: WebhookReceiptService;
  /** Runs one claimed delivery (the queue's task). */
  webhookDelivery: WebhookDeliveryTask;
  schedules: ScheduleService;
  /** Lists, replays and prunes stored deliveries. */
  deliveries: WebhookDeliveriesService;
  /** Rung when a delivery is queued here: the composition root points it at this instance's worker. */
  deliveryQueued: QueueSignal;
  /** Receives the SMS provider's callbacks: messages (stored, queued to answer) and delivery statuses. */
  smsReceipt: SmsReceiptService;
  /** The EMAIL surface's way in: stores received email (the SMTP listener and the provider webhook hand it parsed messages). */
  emailReceipt: EmailReceiptService;
  /** Runs one claimed channel message: answers an inbound one, sends an outbound one (the channel queue's task). */
  channelMessages: ChannelMessageTask;
  /** Rung when a channel message became due here: the composition root points it at this instance's channel worker. */
  channelQueued: ChannelQueueSignal;
  chat: ChatService;
  /** The OpenAI-compatible API: Chat Completions, Responses, models. */
  openai: OpenAiService;
  /** The A2A server: the agent card's skills and message runs. */
  a2a: A2aService;
  workspaceApi: WorkspaceApiService;
  manifests: ManifestService;
  /** OAuth for agents' MCP servers: resources, approvals, access tokens. */
  mcpOAuth: McpOAuthService;
  health: HealthService;
}

export type { ServiceDeps } from './service-deps.js';
export { DEFAULT_SCRIPT_LIMITS } from './service-deps.js';

export function createServices(deps: ServiceDeps): Services {
  const { store, cipher, clock } = deps;
  const secrets = new SecretService(store, cipher, clock);
  const records = new RecordService(store, clock);
  const modelReferences = new ModelReferences(deps.modelDefaults);
  const scriptCheck = new ScriptCheck(deps.compiler ?? deps.sandbox, deps.scriptLimits);
  const agents = new AgentService(store, clock, modelReferences);
  const entries = new EntryService(store, clock, scriptCheck, modelReferences);
  const documents = new DocumentService(store, clock);
  const schedules = new ScheduleService(store, clock, scriptCheck, modelReferences);
  const endpointManagement = new EndpointManagementService({ agents, entries, documents, schedules });
  // Rung by what stores a message to send or answer; the instance's channel worker sets it when it starts.
  const channelQueued: ChannelQueueSignal = { onQueued: () => {} };
  const approvals: ApprovalService = new ApprovalService({
    store,
    clock,
    toolNames: (agent): string[] => runs.toolNames(agent),
    log: { received: (agent, record) => calls.received(agent, record) },
    onError: deps.onApprovalError ?? (() => {}),
  });
  const runs: RunService = new RunService({
    approvals,
    store,
    clock,
    models: deps.models,
    sandbox: deps.sandbox,
    secrets,
    records,
    modelDefaults: deps.modelDefaults,
    endpointManagement,
    scriptLimits: deps.scriptLimits,
    messaging: {
      toolsFor: (agent, run) =>
        messagingTools({ store, clock, queued: channelQueued, mailDomain: deps.mailDomain ?? '' }, agent, run),
    },
  });
  const admission = new AdmissionService(store, clock, { ...DEFAULT_ADMISSION, ...deps.admission }, deps.chargeSink);
  // Readers of usage store every pending charge first: the batched ones and those of credit slices.
  const pendingCharges: Pick<ChargeSink, 'flush'> = {
    flush: async () => {
      await deps.chargeSink?.flush();
      await admission.flushCharges();
    },
  };
  const activityLog = new ActivityLog(store, deps.activitySink, clock);
  const { pipeline, calls, tracer } = callLifecycleOf({ activityLog, admission, runs }, deps);
  const events = eventServicesOf({ store, cipher, clock }, deps);
  calls.events = runEventsOf(events.eventOutbox);
  approvals.attach(calls);
  approvals.events = events.eventOutbox;
  const keys = new KeyService(store, clock, events.eventOutbox);
  const deliveryQueued: QueueSignal = { onQueued: () => {} };
  const sms = deps.sms ?? NO_SMS;
  const email = deps.email ?? NO_EMAIL;
  const mcpOAuth = new McpOAuthService(store, deps.oauthTokens ?? null, clock);
  const surfaces = new SurfaceAccess(store, keys, mcpOAuth);
  const mcp = new McpService(store, calls);
  const accounts = new AccountService(store, clock, deps.passwords, deps.platform);
  const consoleSessions = new ConsoleSessionService(
    store,
    clock,
    accounts,
    deps.signInRules ?? new WorkspaceSignInRules(store),
  );
  const services: Services = {
    mcpOAuth,
    accounts,
    tenants: new TenantService(store),
    workspace: new WorkspaceService(store, clock),
    invitations: new InvitationService(store, clock, deps.passwords, accounts, {
      baseUrl: deps.baseUrl ?? '',
      email,
      mailDomain: deps.mailDomain ?? '',
    }),
    memberships: new MembershipService(store, clock),
    agents,
    keys,
    consoleSessions,
    sso: new SsoService(store, clock, cipher, consoleSessions, deps.sso ?? null),
    entries,
    documents,
    endpointManagement,
    records,
    secrets,
    models: new ModelService({ store, clock, models: deps.models, secrets, modelDefaults: deps.modelDefaults }),
    messages: new MessageService(store, clock),
    activity: new ActivityService(store, clock, pendingCharges, deps.activitySink),
    runs,
    approvals,
    admission,
    activityLog,
    pipeline,
    calls,
    surfaces,
    httpApi: new HttpApiService(store, calls),
    mcp,
    mcpGrants: new McpGrantService(store),
    mcpResources: new McpResourceService(store, records, calls),
    documentApi: new DocumentApiService(records, calls),
    chat: new ChatService(store, clock, calls),
    openai: new OpenAiService(store, clock, calls, runs, surfaces),
    a2a: new A2aService(store, clock, calls, mcp),
    deliveryBodies: new DeliveryBodyService(store),
    webhookReceipt: new WebhookReceiptService(store, clock, secrets, deliveryQueued),
    webhookDelivery: new WebhookDeliveryTask(store, calls),
    deliveries: new WebhookDeliveriesService(store, clock, deliveryQueued),
    schedules,
    deliveryQueued,
    smsReceipt: new SmsReceiptService(store, clock, sms, channelQueued),
    emailReceipt: new EmailReceiptService(store, clock, calls, channelQueued, {
      ...DEFAULT_EMAIL_RECEIPT,
      ...deps.emailReceipt,
    }),
    channelMessages: new ChannelMessageTask({
      store,
      calls,
      sms,
      email,
      clock,
      baseUrl: deps.baseUrl ?? '',
      mailDomain: deps.mailDomain ?? '',
      tracer,
    }),
    channelQueued,
    workspaceApi: new WorkspaceApiService(store, clock, pendingCharges),
    manifests: new ManifestService(store, clock, scriptCheck, modelReferences),
    health: new HealthService(store),
    ...events,
  };
  services.smsReceipt.events = services.emailReceipt.events = events.eventOutbox;
  return services;
}
