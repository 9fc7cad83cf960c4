import { GraphQLJSON } from 'graphql-scalars';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { CHANGE_ACTIONS, type ChangeAction } from '../../domain/manifests/manifest.diff.js';
import { MISSING_KINDS } from '../../domain/manifests/manifest.plan.js';

// Types of the agents-as-code operations (exportAgents, planManifest, applyManifest).

const enumOf = <V extends string>(values: readonly V[]) =>
  Object.fromEntries(values.map((v) => [v, v])) as Record<V, V>;

export const ManifestChangeActionEnum = enumOf(CHANGE_ACTIONS);
export type ManifestChangeActionEnum = ChangeAction;
registerEnumType(ManifestChangeActionEnum, { name: 'ManifestChangeAction' });

export const MissingReferenceKindEnum = enumOf(MISSING_KINDS);
export type MissingReferenceKindEnum = (typeof MISSING_KINDS)[number];
registerEnumType(MissingReferenceKindEnum, {
  name: 'MissingReferenceKind',
  description: 'What a manifest names that the workspace lacks',
});

const APPLIED_AGENT_ACTIONS = ['CREATED', 'UPDATED', 'UNCHANGED'] as const;
export const AppliedAgentActionEnum = enumOf(APPLIED_AGENT_ACTIONS);
registerEnumType(AppliedAgentActionEnum, { name: 'AppliedAgentAction' });

@ObjectType({ description: 'One change a manifest makes, at its path in the manifest' })
export class ManifestChange {
  @Field(() => String, { description: "The agent's metadata.name" }) agent!: string;
  @Field(() => ManifestChangeActionEnum) action!: ChangeAction;
  @Field(() => String, {
    description:
      'Where: spec.instructions, spec.httpApi.endpoints[path=orders/{id}], … ; `agent` for a whole new agent',
  })
  path!: string;
  @Field(() => GraphQLJSON, {
    nullable: true,
    description: 'The value in the workspace, as the manifest writes it (null when created)',
  })
  before!: unknown;
  @Field(() => GraphQLJSON, { nullable: true, description: 'The value the manifest asks for (null when deleted)' })
  after!: unknown;
  @Field(() => Boolean, { description: 'False for a deletion held back because prune was not asked for' })
  applied!: boolean;
}

@ObjectType({
  description:
    'A secret, model or team the manifest names and the workspace lacks; applying is refused until it exists',
})
export class MissingReference {
  @Field(() => MissingReferenceKindEnum) kind!: MissingReferenceKindEnum;
  @Field(() => String) name!: string;
  @Field(() => String, { description: "The agent's metadata.name" }) agent!: string;
  @Field(() => String, { description: 'The field that names it' }) field!: string;
  @Field(() => Int) line!: number;
  @Field(() => Int) column!: number;
  @Field(() => String) message!: string;
}

@ObjectType({ description: 'What applying a manifest would change' })
export class ManifestPlan {
  @Field(() => String, { description: 'Pass to applyManifest: it refuses (CONFLICT) when the workspace changed since' })
  digest!: string;
  @Field(() => [ManifestChange]) changes!: ManifestChange[];
  @Field(() => [MissingReference]) missing!: MissingReference[];
  @Field(() => Boolean, { description: 'Whether applying would change anything' }) hasChanges!: boolean;
}

@ObjectType()
export class AppliedAgent {
  @Field(() => String) name!: string;
  @Field(() => ID) id!: string;
  @Field(() => AppliedAgentActionEnum) action!: (typeof APPLIED_AGENT_ACTIONS)[number];
}

@ObjectType()
export class ManifestApplyResult {
  @Field(() => Boolean, { description: 'False when the workspace already matched the manifest' }) changed!: boolean;
  @Field(() => [ManifestChange], { description: 'The changes made' }) changes!: ManifestChange[];
  @Field(() => [AppliedAgent]) agents!: AppliedAgent[];
}

@ObjectType({ description: "A change to an agent's configuration (an applied manifest): who and what" })
export class AgentChange {
  @Field(() => ID) id!: string;
  @Field(() => ID, { nullable: true, description: 'The member who made it' }) memberId!: string | null;
  @Field(() => String, { description: 'How: manifest' }) source!: string;
  @Field(() => [AgentChangeItem]) changes!: AgentChangeItem[];
  @Field(() => Date) createdAt!: Date;
}

@ObjectType()
export class AgentChangeItem {
  @Field(() => String) action!: string;
  @Field(() => String) path!: string;
}
