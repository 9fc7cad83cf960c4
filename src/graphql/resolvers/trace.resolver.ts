import { Arg, Ctx, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import type { ActivityEntry as ActivityEntryEntity } from '../../domain/activity/activity.entities.js';
import { ActivityEntry } from './activity.types.js';
import type { Context } from '../context.js';
import { runSpans } from './trace-spans.js';
import { RunSpan, RunTrace } from './trace.types.js';

/** A run's timeline (issue 53): the spans its activity entry keeps. */
@Resolver()
export class TraceResolver {
  @Query(() => RunTrace, {
    description:
      "A run's spans, from the activity entry of the call that ran it; NOT_FOUND when no agent you may read has it, or its entry kept none",
  })
  async trace(@Arg('runId', () => ID) runId: string, @Ctx() ctx: Context): Promise<RunTrace> {
    const t = await ctx.services.activity.trace(ctx.principal, runId);
    return { ...t, spans: runSpans(t.spans) };
  }
}

/** An activity entry's spans (fields of ActivityEntry). */
@Resolver(() => ActivityEntry)
export class ActivitySpansResolver {
  @FieldResolver(() => [RunSpan], {
    description:
      "The call's spans, oldest first (the run timeline): read with the entry's bodies (`activityEntry`, or a page that selects bodies); empty otherwise and for entries older than tracing",
  })
  spans(@Root() entry: ActivityEntryEntity): RunSpan[] {
    return runSpans(entry.spans);
  }

  @FieldResolver(() => Int, {
    description:
      'How many spans the call had past the bound of 200 per entry, not kept (`spans` has the first 200 to end): read with the bodies as `spans` is; 0 when none were left out, when the entry keeps no spans, or on a page without bodies',
  })
  spansDropped(@Root() entry: ActivityEntryEntity): number {
    return entry.spans?.length ? (entry.spansDropped ?? 0) : 0;
  }
}
