import type { ActivityLog } from '../activity/activity-log.js';
import type { AdmissionService } from '../admission/admission.service.js';
import { Pipeline } from '../runtime/pipeline.js';
import type { RunMetrics } from '../runtime/run-metrics.ports.js';
import type { RunService } from '../runtime/run.service.js';
import { Tracer } from '../tracing/call-trace.js';
import type { SpanExport } from '../tracing/trace.ports.js';
import type { CancelChannel } from './call-cancel.ports.js';
import { CallCancels, localCancelChannel } from './call-cancels.js';
import { CallLifecycle } from './call-lifecycle.js';

/**
 * The call lifecycle and its engine, the pipeline, sharing one tracer: every call's spans are kept
 * in its activity entry and exported when a collector is configured (`spanExport`). The tracer also
 * starts the spans of work outside any call (a queued message's send attempts).
 */
export function callLifecycleOf(
  core: { activityLog: ActivityLog; admission: AdmissionService; runs: RunService },
  deps: { cancels?: CancelChannel; metrics?: RunMetrics; spanExport?: SpanExport },
): { pipeline: Pipeline; calls: CallLifecycle; tracer: Tracer } {
  const tracer = new Tracer(deps.spanExport);
  const pipeline = new Pipeline(core.admission, core.runs, tracer);
  const cancels = new CallCancels(deps.cancels ?? localCancelChannel());
  return { pipeline, calls: new CallLifecycle(core.activityLog, pipeline, cancels, deps.metrics, tracer), tracer };
}
