import { Field, ID, ObjectType } from 'type-graphql';
import { API_KEY_KINDS, API_KEY_ORIGINS, type ApiKeyKind, type ApiKeyOrigin } from '../../domain/keys/key.entities.js';
import { KEY_SCOPES, type KeyScope } from '../../domain/principal.js';
import { register } from '../graphql-enum.js';

// API keys. GraphQL types of the area.

export const KeyScopeEnum = register(KEY_SCOPES, 'KeyScope');
export type KeyScopeEnum = KeyScope;
export const ApiKeyKindEnum = register(API_KEY_KINDS, 'ApiKeyKind');
export type ApiKeyKindEnum = ApiKeyKind;
export const ApiKeyOriginEnum = register(API_KEY_ORIGINS, 'ApiKeyOrigin');
export type ApiKeyOriginEnum = ApiKeyOrigin;

@ObjectType({ description: 'An API key as listed: never the key itself' })
export class ApiKey {
  @Field(() => ID) id!: string;
  @Field(() => ApiKeyKindEnum) kind!: ApiKeyKindEnum;
  @Field(() => ID, { nullable: true }) agentId!: string | null;
  @Field(() => String) name!: string;
  @Field(() => String) prefix!: string;
  @Field(() => String) last4!: string;
  @Field(() => [KeyScopeEnum]) scopes!: KeyScopeEnum[];
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) lastUsedAt!: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt!: Date | null;
  @Field(() => Date, {
    nullable: true,
    description: 'When the key stops working (refused with 401 from then on); null: it works until revoked',
  })
  expiresAt!: Date | null;
  @Field(() => ApiKeyOriginEnum, {
    description:
      "Who made the key: a person (PERSON), the console's Try it (TRY_IT), or the aes CLI for a call or a chat (CLI)",
  })
  origin!: ApiKeyOriginEnum;
}

@ObjectType()
export class CreatedApiKey {
  @Field(() => String, { description: 'The plaintext key; shown only in this response' }) key!: string;
  @Field(() => ApiKey) apiKey!: ApiKey;
}
