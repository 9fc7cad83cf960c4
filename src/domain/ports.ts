import type { RecordFilter, SortKey } from './documents/record-filter.js';
import type {
  AgentChange,
  ConsoleSession,
  ActivityEntry,
  ActivityKind,
  Agent,
  ApiKey,
  DailyUsage,
  Document,
  DocumentExposure,
  HttpEndpoint,
  McpTool,
  Member,
  MemberToken,
  Message,
  MessageChannel,
  MessageDirection,
  ModelConfig,
  Secret,
  Surface,
  Team,
  Webhook,
  WebhookDelivery,
  WebhookDeliverySummary,
  Conversation,
  ChatTurn,
  DeliveryStatus,
  Workspace,
} from './entities.js';

// Ports the domain talks to. src/infra implements them; nothing here knows about SQL.

/** Plain create/read/replace/delete by id. `update` replaces the stored entity with the given one. */
export interface CrudRepo<T extends { id: string }> {
  get(id: string): Promise<T | null>;
  insert(entity: T): Promise<T>;
  update(entity: T): Promise<T>;
  delete(id: string): Promise<boolean>;
}

/** Entities that belong to one agent; `listByAgents` serves batched (DataLoader) reads. */
export interface AgentChildRepo<T extends { id: string; agentId: string }> extends CrudRepo<T> {
  listByAgents(agentIds: readonly string[]): Promise<T[]>;
}

export interface WorkspaceRepo extends CrudRepo<Workspace> {
  first(): Promise<Workspace | null>;
  listAll(): Promise<Workspace[]>;
}
export interface TeamRepo extends CrudRepo<Team> {
  listByWorkspace(workspaceId: string): Promise<Team[]>;
}
export interface MemberRepo extends CrudRepo<Member> {
  listByWorkspace(workspaceId: string): Promise<Member[]>;
  findByEmail(workspaceId: string, email: string): Promise<Member | null>;
}
export interface MemberTokenRepo extends CrudRepo<MemberToken> {
  findByHash(hash: string): Promise<MemberToken | null>;
  findByName(memberId: string, name: string): Promise<MemberToken | null>;
  listByMember(memberId: string): Promise<MemberToken[]>;
  revoke(id: string, at: Date): Promise<void>;
  touch(id: string, at: Date): Promise<void>;
}
export interface ConsoleSessionRepo {
  insert(s: ConsoleSession): Promise<ConsoleSession>;
  findByHash(hash: string): Promise<ConsoleSession | null>;
  touch(id: string, at: Date): Promise<void>;
  revoke(id: string, at: Date): Promise<void>;
  /** Revokes every live session made from one member token; returns how many. */
  revokeByToken(tokenId: string, at: Date): Promise<number>;
  /** Deletes sessions last used, or revoked, before `before`; returns how many. */
  deleteEndedBefore(before: Date): Promise<number>;
}
export interface AgentRepo extends CrudRepo<Agent> {
  listByWorkspace(workspaceId: string): Promise<Agent[]>;
  getMany(ids: readonly string[]): Promise<Agent[]>;
}
export interface ApiKeyRepo extends CrudRepo<ApiKey> {
  listByAgents(agentIds: readonly string[]): Promise<ApiKey[]>;
  findByHash(hash: string): Promise<ApiKey | null>;
  listWorkspaceKeys(workspaceId: string): Promise<ApiKey[]>;
  revoke(id: string, at: Date): Promise<void>;
  touch(id: string, at: Date): Promise<void>;
  /** Revokes the live keys of one console session (of one agent, when given); returns their ids. */
  revokeByConsoleSession(sessionId: string, at: Date, agentId?: string): Promise<string[]>;
  /** Revokes the live keys of every console session made from one member token; returns their ids. */
  revokeByTokenSessions(tokenId: string, at: Date): Promise<string[]>;
}
export interface DocumentRepo extends AgentChildRepo<Document> {}
export interface ExposureRepo extends AgentChildRepo<DocumentExposure> {
  find(agentId: string, documentId: string): Promise<DocumentExposure | null>;
}
export interface SecretRepo extends CrudRepo<Secret> {
  findByName(workspaceId: string, name: string): Promise<Secret | null>;
  listByWorkspace(workspaceId: string): Promise<Secret[]>;
}
export interface ModelRepo extends CrudRepo<ModelConfig> {
  findByName(workspaceId: string, name: string): Promise<ModelConfig | null>;
  listByWorkspace(workspaceId: string): Promise<ModelConfig[]>;
  clearDefault(workspaceId: string): Promise<void>;
}
export interface MessageRepo extends CrudRepo<Message> {}
export interface ActivityRepo {
  insert(entry: ActivityEntry): Promise<void>;
  insertMany(entries: ActivityEntry[]): Promise<void>;
  /** Deletes a workspace's entries older than `before`, `batch` rows per statement; returns how many. */
  prune(workspaceId: string, before: Date, batch?: number): Promise<number>;
  /** A page of the agent's entries, newest first (createdAt desc, id desc), matching every filter given. */
  list(agentId: string, opts: ActivityListOptions): Promise<ActivityEntry[]>;
  /** One entry of the agent (null when the agent has no entry with that id). */
  find(agentId: string, id: string): Promise<ActivityEntry | null>;
  /**
   * Runs and their credits per UTC day and surface, from `since` on: the entries that carry a run
   * (a run id), each run counted once. Newest day first, surfaces in name order.
   */
  runsBySurface(agentId: string, since: Date): Promise<SurfaceUsage[]>;
  /** The `run` entries of these runs (a run has one). */
  findRuns(runIds: readonly string[]): Promise<ActivityEntry[]>;
}
/** Filters of an agent's activity page (the GraphQL `Agent.activity`). */
export interface ActivityListOptions {
  first: number;
  after?: { createdAt: Date; id: string };
  surface?: string;
  /** Status codes from `min` to `max` inclusive, or `error`: entries with an error (any status). */
  status?: { min: number; max: number } | 'error';
  /** The entry's name, exactly. */
  entry?: string;
  /** False: the entries come without headers, bodies and logs (null), which are not read. */
  withBodies?: boolean;
  /** Created at or after. */
  since?: Date;
  /** Created before. */
  until?: Date;
}
/** Runs of one surface on one UTC day. */
export interface SurfaceUsage {
  day: string;
  surface: Surface;
  runs: number;
  credits: number;
}
/** Changes to agents' configuration (applied manifests), newest first. */
export interface AgentChangeRepo {
  /**
   * Within a transaction: waits for any other manifest apply of the workspace to end (on every
   * instance), so that two applies take turns and the second sees what the first wrote.
   */
  lockWorkspace(workspaceId: string): Promise<void>;
  insert(c: AgentChange): Promise<void>;
  listByAgent(agentId: string, first: number): Promise<AgentChange[]>;
}
/** A database record as stored: its id plus the field values. */
export type StoredRecord = { id: string } & Record<string, unknown>;

export interface RecordRepo {
  /**
   * Records matching every condition of the filter (see record-filter.ts), in the sort order with
   * insertion order breaking ties (insertion order alone without a sort), how many match in all,
   * and — when more records follow this page — the position of its last record.
   */
  query(documentId: string, filter: RecordFilter, page: RecordPage): Promise<{ records: StoredRecord[]; totalCount: number; last?: RecordPosition }>;
  insertMany(documentId: string, rows: { id: string; data: Record<string, unknown> }[], now: Date): Promise<StoredRecord[]>;
  update(documentId: string, filter: RecordFilter, set: Record<string, unknown>, now: Date): Promise<number>;
  delete(documentId: string, filter: RecordFilter): Promise<number>;
}
/** A page of a record query: after `offset` records, or after a position (a cursor). */
export interface RecordPage {
  limit: number;
  offset: number;
  sort?: SortKey[];
  after?: RecordPosition;
}
/** Where a record stands in a sort order: its sort keys' values as text (null: no value) and its insertion number. */
export interface RecordPosition {
  keys: (string | null)[];
  seq: string;
}

export interface UsageRepo {
  listByAgent(agentId: string, fromDay: string): Promise<DailyUsage[]>;
  /** Credits per day summed over the workspace's agents. */
  listByWorkspace(workspaceId: string, fromDay: string): Promise<{ day: string; credits: number; runs: number }[]>;
  /** Credits used on `day` by one agent, a team's agents, or the whole workspace. */
  agentDay(agentId: string, day: string): Promise<number>;
  teamDay(teamId: string, day: string): Promise<number>;
  workspaceDay(workspaceId: string, day: string): Promise<number>;
  /** Adds a run's credits to the agent's row of that day (and keeps the day's largest run). */
  charge(c: CreditCharge): Promise<void>;
  /** Adds several runs' credits at once: one row per agent and day, `runs` runs, `maxRunCredits` the largest. */
  chargeMany(cs: (CreditCharge & { runs: number; maxRunCredits: number })[]): Promise<void>;
  /** The largest credits one run of the agent was charged on a day from `fromDay` on (0 when none). */
  largestRun(agentId: string, fromDay: string): Promise<number>;
}

/** A window of a list: skip `offset` rows, return at most `limit`. */
export interface PageWindow {
  limit: number;
  offset: number;
}
/** One page of a list and the number of rows matching its filter (exact). */
export interface CountedPage<T> {
  items: T[];
  totalCount: number;
}
/** Filters of the Workspace API messages list; dates are exclusive bounds on sentAt. */
export interface MessageFilter {
  direction?: MessageDirection;
  channel?: MessageChannel;
  since?: Date;
  until?: Date;
}
/** Filters of the Workspace API activity list; dates are exclusive bounds on createdAt. */
export interface ActivityFilter {
  surface?: Surface;
  kind?: ActivityKind;
  since?: Date;
  until?: Date;
}
/** Per-agent figures of the Workspace API overview, each read for many agents in one query. */
export interface AgentEntryCounts {
  agentId: string;
  httpEndpoints: number;
  mcpTools: number;
  webhooks: number;
  exposedDocuments: number;
}

/** Read-only queries of the Workspace API; every batched method costs one query whatever the number of agents. */
export interface WorkspaceReadRepo {
  /** Messages of one agent, newest first (sentAt desc, id desc). */
  listMessages(agentId: string, filter: MessageFilter, page: PageWindow): Promise<CountedPage<Message>>;
  /** Activity entries of one agent, newest first (createdAt desc, id desc). */
  listActivity(agentId: string, filter: ActivityFilter, page: PageWindow): Promise<CountedPage<ActivityEntry>>;
  /** Entry counts per agent; agents without entries are listed with zeros. */
  entryCounts(agentIds: readonly string[]): Promise<AgentEntryCounts[]>;
  /** Credits and runs of the given UTC day per agent; agents without usage are absent. */
  usageOnDay(agentIds: readonly string[], day: string): Promise<DailyUsage[]>;
  /** Time of the newest activity entry per agent (null when none). */
  lastActivity(agentIds: readonly string[]): Promise<{ agentId: string; at: Date | null }[]>;
}

/** Whose daily credit limit a sum or a lock is about. */
/** One run's credits, charged to its agent's day. */
export interface CreditCharge {
  agentId: string;
  workspaceId: string;
  teamId: string | null;
  day: string;
  credits: number;
}

/**
 * Where the charges of runs that no credit limit waits on go: infra stores them shortly after, in
 * batches, so charging adds no statement to a request. `flush()` resolves once everything charged so
 * far is stored (readers of usage call it first; shutdown calls it).
 */
export interface ChargeSink {
  charge(c: CreditCharge): void;
  flush(): Promise<void>;
}

export type CreditScope = { agentId: string } | { teamId: string } | { workspaceId: string };

/** A lease on one admitted run; `reservedCredits` count against the credit limits until it ends. */
export interface RunSlot {
  id: string;
  agentId: string;
  workspaceId: string;
  teamId: string | null;
  instanceId: string;
  reservedCredits: number;
  expiresAt: Date;
}

/**
 * Runs in flight: leases shared by every instance through the database. A lease counts towards the
 * agent's concurrency limit and holds its reserved credits against the credit limits until it is
 * released or expires.
 */
export interface SlotRepo {
  /** Serialises admissions of one agent until the surrounding transaction ends. */
  lockAgent(agentId: string): Promise<void>;
  /** Serialises admissions against one team's or workspace's limit until the transaction ends. */
  lockLimit(scope: { teamId: string } | { workspaceId: string }): Promise<void>;
  countActive(agentId: string, now: Date): Promise<number>;
  /** Credits reserved by the unexpired leases of the scope's agents. */
  reserved(scope: CreditScope, now: Date): Promise<number>;
  insert(slot: RunSlot): Promise<void>;
  /**
   * Takes one of the agent's `max` numbered leases in one statement: a number below `max` that no
   * unexpired lease holds, while the agent holds fewer than `max` unexpired leases. A number is
   * unique per agent, so two instances can never take the same one: the limit holds without a lock
   * or a transaction. False when none is free (nothing is written then).
   */
  acquire(slot: RunSlot, max: number, now: Date): Promise<boolean>;
  renew(id: string, expiresAt: Date): Promise<void>;
  release(id: string): Promise<void>;
  /** Deletes leases that expired before `now` (housekeeping; expired ones never count). */
  purgeExpired(now: Date): Promise<number>;
}

/** What a settled processing attempt leaves on its delivery. */
export interface DeliverySettlement {
  status: 'PENDING' | 'DONE' | 'FAILED';
  failures: number;
  nextAttemptAt: Date;
  lastError: string | null;
  runId: string | null;
  completedAt: Date | null;
  updatedAt: Date;
}

/**
 * Webhook deliveries, which are also the queue that runs them. A claim takes due deliveries under a
 * lease that any instance honours (FOR UPDATE SKIP LOCKED); the attempt number is the claim's fence:
 * a worker whose lease ran out and whose delivery was claimed again can no longer settle it.
 */
export interface DeliveryRepo {
  /** One delivery with its whole body. */
  get(id: string): Promise<WebhookDelivery | null>;
  insert(d: WebhookDelivery): Promise<WebhookDeliverySummary>;
  /**
   * Stores a delivery unless one with the same dedupe key was stored for its webhook since
   * `dedupeSince`; then stores nothing and returns that one. Older holders of the key give it up.
   * Must run in a transaction.
   */
  accept(d: WebhookDelivery, dedupeSince: Date): Promise<{ delivery: WebhookDeliverySummary; duplicate: boolean }>;
  /**
   * Takes up to `limit` deliveries that are due (pending, or running under an expired lease), fairly
   * between agents: every agent's oldest due delivery before any agent's second, and so on; oldest
   * due first among equals. Returned in that order, without bodies.
   */
  claim(now: Date, leaseUntil: Date, limit: number): Promise<WebhookDeliverySummary[]>;
  /** The whole body of one delivery, as received; null when the delivery no longer exists. */
  body(id: string): Promise<Buffer | null>;
  /** The first `bytes` bytes of each delivery's body, by id (deliveries that no longer exist are absent). */
  bodyHeads(ids: readonly string[], bytes: number): Promise<Map<string, Buffer>>;
  /** Extends the lease of a claim still held (same attempt); false when it is no longer held. */
  renew(id: string, attempt: number, leaseUntil: Date): Promise<boolean>;
  /** Ends a claim still held (same attempt); false when it is no longer held. */
  settle(id: string, attempt: number, s: DeliverySettlement): Promise<boolean>;
  /**
   * Gives a claim still held (same attempt) back to the queue: due at `now`, for any instance, with
   * no failure counted (its instance is shutting down); false when it is no longer held.
   */
  handBack(id: string, attempt: number, now: Date): Promise<boolean>;
  /** An agent's deliveries, newest first, without bodies. */
  list(agentId: string, opts: { first: number; after?: { createdAt: Date; id: string }; webhookId?: string; status?: DeliveryStatus }): Promise<WebhookDeliverySummary[]>;
  /** Deletes finished (DONE or FAILED) deliveries created before `before`; returns how many. */
  prune(before: Date): Promise<number>;
  /**
   * Empties the body of finished deliveries completed before `before` that still have one, marking
   * them dropped `at`; the rows stay. In batches of `batch`, each its own statement; returns how many.
   */
  dropBodies(before: Date, at: Date, batch?: number): Promise<number>;
}

/** Chat conversations and their turns. */
export interface ConversationRepo {
  get(id: string): Promise<Conversation | null>;
  insert(c: Conversation): Promise<Conversation>;
  /** The conversation's newest `limit` turns, oldest first. */
  recentTurns(conversationId: string, limit: number): Promise<ChatTurn[]>;
  /** Appends turns and moves the conversation's updatedAt. */
  addTurns(conversationId: string, turns: ChatTurn[], at: Date): Promise<void>;
}

export interface Repositories {
  workspaces: WorkspaceRepo;
  teams: TeamRepo;
  members: MemberRepo;
  memberTokens: MemberTokenRepo;
  consoleSessions: ConsoleSessionRepo;
  agents: AgentRepo;
  apiKeys: ApiKeyRepo;
  httpEndpoints: AgentChildRepo<HttpEndpoint>;
  mcpTools: AgentChildRepo<McpTool>;
  webhooks: AgentChildRepo<Webhook>;
  deliveries: DeliveryRepo;
  conversations: ConversationRepo;
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

/** Encrypts and decrypts secret values (AES-256-GCM in infra). */
export interface Cipher {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

/** What the run pipeline reports to the instance's metrics (infra/metrics.ts); never throws. */
export interface RunMetrics {
  /** An admitted run ended: its handler kind, `ok` or the kind of its failure, and its credits. */
  run(handler: 'script' | 'prompt', outcome: string, credits: number): void;
}
