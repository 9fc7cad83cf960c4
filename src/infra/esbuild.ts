import type { BuildOptions, OutputFile } from 'esbuild';
import { runEsbuild } from './esbuild-runner.js';

/**
 * One esbuild build with its files kept in memory (`write: false`), queued behind any other build
 * of this process (the widget, the console and GraphiQL are all built at start) by the one queue of
 * esbuild-runner.ts, which also stops esbuild's helper process once no build is left.
 */
export async function bundleOnce(options: Omit<BuildOptions, 'write'>): Promise<OutputFile[]> {
  const result = await runEsbuild({ ...options, write: false });
  return result.outputFiles ?? [];
}
