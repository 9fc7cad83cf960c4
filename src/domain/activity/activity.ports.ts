import type { Surface } from '../core/surface.entities.js';
import type { ActivityEntry } from './activity.entities.js';

// Ports of activity the domain talks to. src/infra implements them; nothing here knows about SQL.

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
  /** Every entry naming this run (its request's, or its own `run` entry), newest first, with their spans. */
  findByRunId(runId: string): Promise<ActivityEntry[]>;
  /**
   * The latest `run` entry of each of these webhook deliveries of the agent (one per delivery that
   * has one), without headers, bodies and logs unless `withBodies`.
   */
  latestDeliveryRuns(agentId: string, deliveryIds: readonly string[], withBodies: boolean): Promise<ActivityEntry[]>;
  /**
   * Creates the log's daily partitions for the UTC days from `now`'s to `aheadDays` after it that
   * have none, and drops those lying wholly before `dropBefore`. Null when the log is one table, or
   * when another instance is doing it at this moment.
   */
  maintainPartitions(now: Date, aheadDays: number, dropBefore: Date): Promise<PartitionUpkeep | null>;
}
/** What one pass of partition upkeep did. */
export interface PartitionUpkeep {
  created: string[];
  dropped: string[];
  /**
   * Where the partitions that follow each other without a gap from now on ended before this pass
   * created any (null: none held now). Close to now means housekeeping has not run for days.
   */
  coveredUntil: Date | null;
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
  /** Whether protocol traffic is listed too (default: left out). */
  includeProtocol?: boolean;
  /**
   * Whether a webhook delivery's `run` entries are left out when their receipt (the `request` entry
   * of the same delivery) matches the same filters: the list shows the two as one row.
   */
  foldDeliveryRuns?: boolean;
}
/** Runs of one surface on one UTC day. */
export interface SurfaceUsage {
  day: string;
  surface: Surface;
  runs: number;
  credits: number;
}
