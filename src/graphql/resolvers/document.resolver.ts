import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../context.js';
import { DocumentInput, UpdateDocumentInput } from '../types/inputs.js';
import { Document, DocumentExposure } from '../types/objects.js';

@Resolver(() => Document)
export class DocumentResolver {
  @Mutation(() => Document)
  createDocument(@Arg('agentId', () => ID) agentId: string, @Arg('input', () => DocumentInput) input: DocumentInput, @Ctx() ctx: Context) {
    return ctx.services.documents.create(ctx.principal, agentId, input);
  }

  @Mutation(() => Document)
  updateDocument(@Arg('id', () => ID) id: string, @Arg('input', () => UpdateDocumentInput) input: UpdateDocumentInput, @Ctx() ctx: Context) {
    return ctx.services.documents.update(ctx.principal, id, input);
  }

  @Mutation(() => Boolean)
  deleteDocument(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.documents.delete(ctx.principal, id);
  }

  @Mutation(() => DocumentExposure, { description: 'Exposes a document on the Document API with read and/or write permission' })
  exposeDocument(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('documentId', () => ID) documentId: string,
    @Arg('read', () => Boolean, { nullable: true }) read: boolean | undefined,
    @Arg('write', () => Boolean, { nullable: true }) write: boolean | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.documents.expose(ctx.principal, agentId, documentId, { read: read ?? undefined, write: write ?? undefined });
  }

  @Mutation(() => Boolean)
  unexposeDocument(@Arg('agentId', () => ID) agentId: string, @Arg('documentId', () => ID) documentId: string, @Ctx() ctx: Context) {
    return ctx.services.documents.unexpose(ctx.principal, agentId, documentId);
  }
}
