import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { DEFAULT_TOOL_SCHEMA } from '../../domain/entries/entry.schemas.js';
import { webhookWarning } from '../../domain/entries/body-limit.js';
import type {
  HttpEndpoint as HttpEndpointEntity,
  McpTool as McpToolEntity,
  Webhook as WebhookEntity,
} from '../../domain/entries/entry.entities.js';
import type { WebhookDeliverySummary as DeliveryEntity } from '../../domain/webhooks/webhook.entities.js';
import type { Context } from '../context.js';
import {
  HandlerOut,
  HttpEndpoint,
  HttpEndpointInput,
  McpTool,
  McpToolInput,
  UpdateHttpEndpointInput,
  UpdateMcpToolInput,
  UpdateWebhookInput,
  Webhook,
  WebhookInput,
} from './entry.types.js';
import {
  DeliveryRun,
  DeliveryStatusEnum,
  WebhookDelivery,
  WebhookDeliveryConnection,
} from './webhook-delivery.types.js';
import { handlerOut } from './shape.js';

@Resolver(() => HttpEndpoint)
export class HttpEndpointResolver {
  @Mutation(() => HttpEndpoint)
  addHttpEndpoint(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('input', () => HttpEndpointInput) input: HttpEndpointInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'addHttpEndpoint', { agentId, input });
  }

  @Mutation(() => HttpEndpoint)
  updateHttpEndpoint(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateHttpEndpointInput) input: UpdateHttpEndpointInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'updateHttpEndpoint', { id, input });
  }

  @Mutation(() => Boolean)
  removeHttpEndpoint(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.endpointManagement.call(ctx.principal, 'removeHttpEndpoint', { id });
  }

  @FieldResolver(() => HandlerOut)
  handler(@Root() e: HttpEndpointEntity) {
    return handlerOut(e.handler);
  }
}

@Resolver(() => McpTool)
export class McpToolResolver {
  @Mutation(() => McpTool)
  addMcpTool(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('input', () => McpToolInput) input: McpToolInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'addMcpTool', { agentId, input });
  }

  @Mutation(() => McpTool)
  updateMcpTool(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateMcpToolInput) input: UpdateMcpToolInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'updateMcpTool', { id, input });
  }

  @Mutation(() => Boolean)
  removeMcpTool(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.endpointManagement.call(ctx.principal, 'removeMcpTool', { id });
  }

  @FieldResolver(() => HandlerOut)
  handler(@Root() t: McpToolEntity) {
    return handlerOut(t.handler);
  }

  @FieldResolver(() => GraphQLJSONObject, {
    description: 'JSON Schema shown to MCP clients (the default when none was set)',
  })
  inputSchema(@Root() t: McpToolEntity) {
    return t.inputSchema ?? DEFAULT_TOOL_SCHEMA;
  }
}

@Resolver(() => Webhook)
export class WebhookResolver {
  @Mutation(() => Webhook)
  addWebhook(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('input', () => WebhookInput) input: WebhookInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'addWebhook', { agentId, input });
  }

  @Mutation(() => Webhook)
  updateWebhook(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateWebhookInput) input: UpdateWebhookInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'updateWebhook', { id, input });
  }

  @Mutation(() => Boolean)
  removeWebhook(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.endpointManagement.call(ctx.principal, 'removeWebhook', { id });
  }

  @FieldResolver(() => HandlerOut)
  handler(@Root() w: WebhookEntity) {
    return handlerOut(w.handler);
  }

  @FieldResolver(() => String, {
    nullable: true,
    description:
      'What to know about this integration (null: nothing): an integration without a signature check runs for anyone who knows its URL',
  })
  warning(@Root() w: WebhookEntity) {
    return webhookWarning(w);
  }
}

@Resolver(() => WebhookDelivery)
export class WebhookDeliveryResolver {
  @Query(() => WebhookDeliveryConnection, { description: "An agent's webhook deliveries, newest first" })
  webhookDeliveries(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('integration', () => String, { nullable: true }) integration: string | undefined,
    @Arg('status', () => DeliveryStatusEnum, { nullable: true }) status: DeliveryStatusEnum | undefined,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.deliveries.list(ctx.principal, agentId, {
      first,
      after: after ?? undefined,
      integration: integration ?? undefined,
      status: status ?? undefined,
    });
  }

  @Mutation(() => WebhookDelivery, {
    description: 'Queues a stored delivery to run again (also a failed one); returns the new delivery',
  })
  replayWebhookDelivery(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.deliveries.replay(ctx.principal, id);
  }

  @FieldResolver(() => String, { description: 'The body as received, as UTF-8 text (the first 64 KiB)' })
  body(@Root() d: DeliveryEntity, @Ctx() ctx: Context) {
    return ctx.loaders.deliveryBodies.load(d.id);
  }

  @FieldResolver(() => DeliveryRun, {
    nullable: true,
    description:
      "The outcome of the latest run (output, error, credits); null until the delivery has run, or when the agent's webhook activity logging is off",
  })
  async run(@Root() d: DeliveryEntity, @Ctx() ctx: Context) {
    if (!d.runId) return null;
    const entry = await ctx.loaders.runs.load(d.runId);
    if (!entry) return null;
    // A run entry's response is `{output}` or `{error}` (runtime/pipeline.ts).
    const response = entry.response as { output?: unknown } | null;
    return {
      runId: d.runId,
      output: response?.output ?? null,
      error: entry.error,
      credits: entry.credits,
      durationMs: entry.durationMs,
    };
  }

  @FieldResolver(() => Date, {
    nullable: true,
    description: 'When a pending delivery runs next (a retrying one: after its backoff); null once done or failed',
  })
  nextAttemptAt(@Root() d: DeliveryEntity) {
    return d.status === 'PENDING' ? d.nextAttemptAt : null;
  }

  @FieldResolver(() => Int, { description: 'Size of the body as received, in bytes' })
  bodyBytes(@Root() d: DeliveryEntity) {
    return d.bodyBytes;
  }
}
