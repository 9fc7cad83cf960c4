/** What the run pipeline reports to the instance's metrics (infra/metrics.ts); never throws. */
export interface RunMetrics {
  /** An admitted run ended: its handler kind, `ok` or the kind of its failure, and its credits. */
  run(handler: 'script' | 'prompt', outcome: string, credits: number): void;
}
