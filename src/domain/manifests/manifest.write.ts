import { newId } from '../ids.js';
import type { Agent } from '../core/agent.entities.js';
import type { Repositories } from '../ports.js';
import type { AgentChildRepo } from '../repo.ports.js';
import { canonicalJson, KEYS, type AgentState } from './manifest.state.js';
import { channelOut, documentOut, endpointOut, settingsOut, toolOut, webhookOut } from './manifest.output.js';
import { scheduleOut } from './manifest.schedules.js';

// Writes a planned agent through the repositories of the apply's transaction: the agent's row, then
// its entries matched by natural key (deletions first, so that nothing collides, and only with
// prune), then its documents with their exposure and records.

export interface WriteAgent {
  workspaceId: string;
  memberId: string;
  existing: Agent | null;
  desired: AgentState;
  /** Team name → id. */
  teamIds: Map<string, string>;
  prune: boolean;
  now: Date;
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** Brings the agent to `desired`; returns its id. */
export async function writeAgent(r: Repositories, w: WriteAgent): Promise<string> {
  const s = w.desired.settings;
  const settings = {
    name: s.name,
    slug: s.slug,
    description: s.description,
    instructions: s.instructions,
    defaultModel: s.defaultModel,
    visibility: s.visibility,
    teamId: s.team ? (w.teamIds.get(s.team) ?? null) : null,
    allowWorkspaceKeys: s.allowWorkspaceKeys,
    surfaces: s.surfaces,
    cors: s.cors,
    capabilities: s.capabilities,
    guardrails: s.guardrails,
    dailyCreditLimit: s.limits.dailyCreditLimit,
    maxConcurrentRequests: s.limits.maxConcurrentRequests,
  };
  let agentId: string;
  if (!w.existing) {
    agentId = newId('agt');
    await r.agents.insert({
      id: agentId,
      workspaceId: w.workspaceId,
      createdBy: w.memberId,
      ...settings,
      createdAt: w.now,
      updatedAt: w.now,
    });
  } else {
    agentId = w.existing.id;
    const before = { ...w.existing, teamId: w.existing.teamId };
    const next = { ...w.existing, ...settings };
    if (!same(pick(before), pick(next))) await r.agents.update({ ...next, updatedAt: w.now });
  }
  const ctx = { agentId, now: w.now, prune: w.prune };
  await sync(r.httpEndpoints, ctx, w.desired.endpoints, KEYS.endpoints, endpointOut, 'ep', (e) => ({ ...e }));
  await sync(r.mcpTools, ctx, w.desired.tools, KEYS.tools, toolOut, 'tool', (e) => ({ ...e }));
  await sync(r.webhooks, ctx, w.desired.webhooks, KEYS.webhooks, webhookOut, 'wh', (e) => ({ ...e }));
  await sync(r.channels, ctx, w.desired.channels, KEYS.channels, channelOut, 'ch', (e) => ({ ...e }));
  await sync(r.schedules, ctx, w.desired.schedules, KEYS.schedules, scheduleOut, 'sch', (e) => ({
    ...e,
    workspaceId: w.workspaceId,
  }));
  await writeDocuments(r, w, agentId);
  return agentId;
}

const SETTING_KEYS = [
  'name',
  'slug',
  'description',
  'instructions',
  'defaultModel',
  'visibility',
  'teamId',
  'allowWorkspaceKeys',
  'surfaces',
  'cors',
  'capabilities',
  'guardrails',
  'dailyCreditLimit',
  'maxConcurrentRequests',
] as const;
const pick = (a: Agent) => Object.fromEntries(SETTING_KEYS.map((k) => [k, a[k]]));

/** Inserts, updates and (with prune) deletes the agent's entries of one kind to match `desired`. */
async function sync<T extends { id: string; agentId: string; createdAt: Date; updatedAt: Date }, S>(
  repo: AgentChildRepo<T>,
  ctx: { agentId: string; now: Date; prune: boolean },
  desired: S[],
  key: (e: S) => string,
  out: (e: S) => Record<string, unknown>,
  idPrefix: string,
  fields: (e: S) => object,
): Promise<void> {
  const current = await repo.listByAgents([ctx.agentId]);
  const byKey = new Map(current.map((e) => [key(e as unknown as S), e]));
  const wanted = new Set(desired.map(key));
  if (ctx.prune) for (const c of current) if (!wanted.has(key(c as unknown as S))) await repo.delete(c.id);
  for (const d of desired) {
    const c = byKey.get(key(d));
    if (!c)
      await repo.insert({
        ...fields(d),
        id: newId(idPrefix),
        agentId: ctx.agentId,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      } as unknown as T);
    else if (!same(out(c as unknown as S), out(d))) await repo.update({ ...c, ...fields(d), updatedAt: ctx.now });
  }
}

async function writeDocuments(r: Repositories, w: WriteAgent, agentId: string): Promise<void> {
  // In the apply's transaction: one query at a time on its connection.
  const current = await r.documents.listByAgents([agentId]);
  const exposures = await r.exposures.listByAgents([agentId]);
  const byName = new Map(current.map((d) => [d.name, d]));
  const wanted = new Set(w.desired.documents.map((d) => d.name));
  if (w.prune) for (const c of current) if (!wanted.has(c.name)) await r.documents.delete(c.id);
  for (const d of w.desired.documents) {
    let doc = byName.get(d.name);
    const fields = { name: d.name, description: d.description, kind: d.kind, content: d.content, fields: d.fields };
    let isNew = false;
    if (!doc) {
      doc = await r.documents.insert({
        id: newId('doc'),
        workspaceId: w.workspaceId,
        agentId,
        ...fields,
        createdAt: w.now,
        updatedAt: w.now,
      });
      isNew = true;
    } else if (!same(documentOut({ ...d, exposure: null }), documentOut({ ...doc, exposure: null }))) {
      doc = await r.documents.update({ ...doc, ...fields, updatedAt: w.now });
    }
    const exposure = exposures.find((e) => e.documentId === doc.id);
    if (d.exposure && !exposure)
      await r.exposures.insert({ id: newId('exp'), agentId, documentId: doc.id, ...d.exposure, createdAt: w.now });
    else if (
      d.exposure &&
      exposure &&
      (exposure.read !== d.exposure.read || exposure.write !== d.exposure.write || exposure.mcp !== d.exposure.mcp)
    )
      await r.exposures.update({ ...exposure, ...d.exposure });
    else if (!d.exposure && exposure) await r.exposures.delete(exposure.id);
    if (d.records === undefined) continue;
    if (!isNew) {
      const { records } = await r.records.query(doc.id, {}, { limit: d.records.length + 1, offset: 0 });
      const existing = records.map(({ id: _id, ...data }) => data);
      if (same(existing, d.records)) continue;
      await r.records.delete(doc.id, {});
    }
    if (d.records.length)
      await r.records.insertMany(
        doc.id,
        d.records.map((data) => ({ id: newId('rec'), data })),
        w.now,
      );
  }
}
