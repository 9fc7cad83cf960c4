import { Field, ObjectType } from 'type-graphql';
import { MODEL_SOURCES, type ModelSource } from '../../domain/models/model-choice.js';
import { register } from '../graphql-enum.js';
import { ModelProviderEnum } from './workspace.types.js';

// The model a prompt run uses and where that choice comes from (Agent.modelInUse).

export const ModelSourceEnum = register(MODEL_SOURCES, 'ModelSource', {
  description:
    "Where a run's model comes from, in the order a run looks: the entry's override, the agent's default model, the workspace's default model, the environment (OPENAI_MODEL / ANTHROPIC_MODEL); NONE: nowhere",
});
export type ModelSourceEnum = ModelSource;

@ObjectType({ description: 'The model a prompt run uses, where that choice comes from, and where the run sends it' })
export class ModelInUse {
  @Field(() => String, {
    nullable: true,
    description: "A configured model's name, or a model name the environment's provider takes; null: none",
  })
  reference!: string | null;

  @Field(() => ModelSourceEnum) source!: ModelSourceEnum;

  @Field(() => ModelProviderEnum, { nullable: true, description: 'The provider the run calls; null: none takes it' })
  provider!: ModelProviderEnum | null;

  @Field(() => String, { nullable: true, description: "The provider's own name of the model" })
  model!: string | null;

  @Field(() => Boolean, {
    description:
      "Whether the reference names a model configured in the workspace (else the environment's provider takes it)",
  })
  configured!: boolean;

  @Field(() => String, { nullable: true, description: 'Why a prompt run would find no model; null: it finds one' })
  problem!: string | null;
}
