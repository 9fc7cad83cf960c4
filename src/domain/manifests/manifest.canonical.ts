import { stringify } from 'yaml';

// The one canonical written form of manifest values: keys in a fixed order, so that equal states
// are equal texts (what plans compare and digests hash).

/** Keys written first, in this order; every other key follows in code-point order. */
const FIRST = ['apiVersion', 'kind', 'metadata', 'spec', 'name', 'path', 'integration', 'methods'];

/** A copy with every object's keys in the canonical order (free-form JSON included). */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== 'object') return v;
  const rank = (k: string) => {
    const i = FIRST.indexOf(k);
    return i < 0 ? FIRST.length : i;
  };
  const keys = Object.keys(v).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
}

/** The canonical JSON text of a value: what equality and digests compare. */
export const canonicalJson = (v: unknown) => JSON.stringify(canonical(v));

/** Manifest documents as one YAML stream, `---` between documents. */
export function writeYaml(docs: Record<string, unknown>[]): string {
  return docs
    .map((d) => stringify(canonical(d), { lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false }))
    .join('---\n');
}
