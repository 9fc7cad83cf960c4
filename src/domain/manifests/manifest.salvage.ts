import type { z } from 'zod';
import { httpEndpointInput, mcpToolInput, webhookInput } from '../entries/entry.schemas.js';
import { manifestChannel, manifestDocument, type ManifestSpec } from './manifest.schemas.js';
import { manifestSchedule } from './manifest.schedules.js';

// A document that does not match the manifest schema is still checked entry by entry, so that one
// answer lists every error: a wrong type elsewhere must not hide a script that does not compile or
// a path given twice (issue 51).

/** The lists of a manifest's spec: what the checks after the schema (unique keys, scripts) read. */
export type EntryLists = Pick<ManifestSpec, 'httpApi' | 'mcp' | 'webhooks' | 'channels' | 'documents' | 'schedules'>;

/** Entries looked at per list, as many as a valid list may hold. */
const MAX_ENTRIES = 500;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The entries of a document's `spec` (its raw value) that match their own schema. The lists are
 * sparse: an entry that does not match is a hole, so every other keeps its index in the file (and
 * `forEach` passes over the holes).
 */
export function salvagedEntries(value: unknown): EntryLists {
  const spec = isObject(value) && isObject(value.spec) ? value.spec : {};
  const at = (group: string | null, key: string): unknown[] => {
    const holder = group === null ? spec : spec[group];
    const list = isObject(holder) ? holder[key] : undefined;
    return Array.isArray(list) ? list.slice(0, MAX_ENTRIES) : [];
  };
  const valid = <S extends z.ZodType>(list: unknown[], schema: S): z.output<S>[] => {
    const out: z.output<S>[] = [];
    list.forEach((e, i) => {
      const r = schema.safeParse(e);
      if (r.success) out[i] = r.data;
    });
    return out;
  };
  return {
    httpApi: { endpoints: valid(at('httpApi', 'endpoints'), httpEndpointInput) },
    mcp: { tools: valid(at('mcp', 'tools'), mcpToolInput) },
    webhooks: { integrations: valid(at('webhooks', 'integrations'), webhookInput) },
    channels: valid(at(null, 'channels'), manifestChannel),
    documents: valid(at(null, 'documents'), manifestDocument),
    schedules: valid(at(null, 'schedules'), manifestSchedule),
  };
}
