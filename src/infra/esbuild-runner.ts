import type { BuildOptions, BuildResult, SameShape } from 'esbuild';

// esbuild runs its builds in one helper process per Node process, and `stop()` ends it for every
// build in flight. The widget and the console are both built at start: their builds run one after
// another here, and the helper is stopped once none is waiting (no build comes later in a process's life).

let queue: Promise<unknown> = Promise.resolve();
let waiting = 0;

/** Runs one esbuild build after any other in this process; stops esbuild's helper when the last one ends. */
export function runEsbuild<T extends BuildOptions>(options: SameShape<BuildOptions, T>): Promise<BuildResult<T>> {
  waiting++;
  const run = queue.then(async () => {
    const esbuild = await import('esbuild');
    try {
      return await esbuild.build(options);
    } finally {
      if (--waiting === 0) await esbuild.stop();
    }
  });
  queue = run.catch(() => undefined);
  return run;
}
