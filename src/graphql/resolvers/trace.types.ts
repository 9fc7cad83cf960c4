import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: "A span's failure: the error catalogue's code and the message" })
export class SpanError {
  @Field(() => String) code!: string;
  @Field(() => String) message!: string;
}

@ObjectType({
  description:
    'One span of a run: the call (server), the run (invoke_agent), a model call (chat), a tool (execute_tool), the guardrails, admission, the script; attributes after the OpenTelemetry GenAI conventions',
})
export class RunSpan {
  @Field(() => ID) spanId!: string;
  @Field(() => ID, { nullable: true, description: "The parent span (the caller's for the call's first span)" })
  parentSpanId!: string | null;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'server, client, consumer or internal' }) kind!: string;
  @Field(() => Date) startedAt!: Date;
  @Field(() => Float, { description: "Milliseconds after the trace's first span started" }) offsetMs!: number;
  @Field(() => Float) durationMs!: number;
  @Field(() => GraphQLJSONObject) attributes!: object;
  @Field(() => SpanError, { nullable: true }) error!: SpanError | null;
  @Field(() => GraphQLJSON, { nullable: true, description: "A tool's input, redacted as the log is" })
  input!: unknown;
  @Field(() => GraphQLJSON, { nullable: true, description: "A tool's output, redacted as the log is" })
  output!: unknown;
}

@ObjectType({ description: "A run's trace, as the activity entry of the call that ran it keeps it" })
export class RunTrace {
  @Field(() => ID) runId!: string;
  @Field(() => ID, { description: 'The activity entry that keeps the spans' }) entryId!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => String, { nullable: true, description: 'The W3C trace id (the caller’s when it sent a traceparent)' })
  traceId!: string | null;
  @Field(() => [RunSpan]) spans!: RunSpan[];
  @Field(() => Int, { description: 'Spans past the bound of 200 per entry, not kept' }) spansDropped!: number;
}
