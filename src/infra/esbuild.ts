import { build, stop, type BuildOptions, type OutputFile } from 'esbuild';

let queue: Promise<unknown> = Promise.resolve();
let pending = 0;

/**
 * Runs one esbuild build after any other still running (the widget and GraphiQL are both built
 * at start), then stops esbuild's helper process once none is left: `stop()` kills it, and a
 * build in flight at that moment would fail. The files stay in memory (`write: false`).
 */
export async function bundleOnce(options: Omit<BuildOptions, 'write'>): Promise<OutputFile[]> {
  pending += 1;
  const run = queue.then(async () => (await build({ ...options, write: false })).outputFiles);
  queue = run.catch(() => undefined);
  try {
    return await run;
  } finally {
    pending -= 1;
    if (pending === 0) await stop();
  }
}
