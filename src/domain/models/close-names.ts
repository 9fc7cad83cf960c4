/** Names compared when suggesting (a provider's list is at most a few thousand names; this bounds the work). */
const MAX_COMPARED_NAMES = 10_000;
/** Characters of each name compared by edit distance. */
const MAX_COMPARED_CHARS = 64;

/**
 * The `n` names nearest to `wanted`: shared prefix first, then edit distance, then alphabetical.
 * Only names that look alike (a common start of 3 characters, or at most a third of the name
 * differing) unless none does: then the nearest `n` anyway, so the refusal always shows some.
 */
export function closestNames(wanted: string, names: string[], n: number): string[] {
  const w = wanted.toLowerCase().slice(0, MAX_COMPARED_CHARS);
  const score = (name: string) => {
    const lower = name.toLowerCase().slice(0, MAX_COMPARED_CHARS);
    let prefix = 0;
    while (prefix < w.length && prefix < lower.length && w[prefix] === lower[prefix]) prefix++;
    return { name, prefix, distance: editDistance(w, lower) };
  };
  const ranked = [...new Set(names)]
    .slice(0, MAX_COMPARED_NAMES)
    .map(score)
    .sort((a, b) => b.prefix - a.prefix || a.distance - b.distance || a.name.localeCompare(b.name));
  const alike = ranked.filter((s) => s.prefix >= 3 || s.distance <= Math.ceil(w.length / 3));
  return (alike.length ? alike : ranked).slice(0, n).map((s) => s.name);
}

/** Levenshtein distance (of strings at most MAX_COMPARED_CHARS long). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}
