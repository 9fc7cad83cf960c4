/**
 * Compiled forms of member-written text (guardrail patterns, tool schemas), compiled once per
 * distinct source and kept in a bounded map, least recently used dropped first, so many agents'
 * patterns and schemas cannot grow memory without end. A source that cannot be compiled is kept
 * too, as its refusal, and thrown again on each use without compiling it again.
 */
export class CompileCache<T, R extends Error> {
  private readonly entries = new Map<string, T | R>();

  constructor(
    private readonly size: number,
    private readonly refusal: abstract new (...args: never[]) => R,
  ) {
    everyCache.push(this);
  }

  /** Forgets every compiled form. */
  clear(): void {
    this.entries.clear();
  }

  /** The compiled form for `key`: compiled by `compile` the first time. Throws the refusal `compile` threw. */
  get(key: string, compile: () => T): T {
    let entry = this.entries.get(key);
    if (entry !== undefined) {
      this.entries.delete(key);
    } else {
      try {
        entry = compile();
      } catch (err) {
        if (!(err instanceof this.refusal)) throw err;
        entry = err;
      }
      if (this.entries.size >= this.size) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, entry);
    if (entry instanceof this.refusal) throw entry;
    return entry as T;
  }
}

/** The caches of the process (module-level singletons, a handful). */
const everyCache: { clear(): void }[] = [];

/**
 * Empties every compile cache. The tests do it before each test, so that no test's outcome depends
 * on what an earlier test compiled — and a mutation tester, which reruns tests in one process with
 * the compile code changed, sees each pattern and schema compiled again rather than served from
 * the cache filled before the change.
 */
export function clearCompileCaches(): void {
  for (const c of everyCache) c.clear();
}
