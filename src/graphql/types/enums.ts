import { registerEnumType } from 'type-graphql';
import { ACTIVITY_KINDS, type ActivityKind } from '../../domain/activity/activity.entities.js';
import { REDACT_PRESETS, VISIBILITIES, type RedactPreset, type Visibility } from '../../domain/agents/agent.entities.js';
import { DOCUMENT_KINDS, FIELD_TYPES, type DocumentKind, type FieldType } from '../../domain/documents/document.entities.js';
import { HANDLER_KINDS, HTTP_METHODS, SIGNATURE_SCHEMES, type HandlerKind, type HttpMethod, type SignatureScheme } from '../../domain/entries/entry.entities.js';
import { API_KEY_KINDS, type ApiKeyKind } from '../../domain/keys/key.entities.js';
import { MESSAGE_CHANNELS, MESSAGE_DIRECTIONS, type MessageChannel, type MessageDirection } from '../../domain/messages/message.entities.js';
import { MODEL_PROVIDERS, type ModelProvider } from '../../domain/models/model.entities.js';
import { SECRET_KINDS, type SecretKind } from '../../domain/secrets/secret.entities.js';
import { SURFACES, type Surface } from '../../domain/surfaces/surface.entities.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/webhooks/webhook.entities.js';
import { KEY_SCOPES, ROLES, type KeyScope, type Role } from '../../domain/principal.js';

// GraphQL enums, derived from the domain's lists of values so the two cannot drift apart. A value
// the domain writes in lower case gets an upper-case GraphQL name (`openai-compatible` →
// OPENAI_COMPATIBLE); the redaction presets keep their own names, as the spec writes them.

/** An enum object for type-graphql: GraphQL name → domain value. */
function graphqlEnum<V extends string>(values: readonly V[], nameOf: (v: V) => string = (v) => v.toUpperCase().replace(/-/g, '_')): Record<string, V> {
  return Object.fromEntries(values.map((v) => [nameOf(v), v]));
}

function register<V extends string>(values: readonly V[], name: string, opts: { description?: string; nameOf?: (v: V) => string } = {}): Record<string, V> {
  const e = graphqlEnum(values, opts.nameOf);
  registerEnumType(e, { name, description: opts.description });
  return e;
}

export const SurfaceEnum = register(SURFACES, 'Surface', { description: 'An agent surface' });
export type SurfaceEnum = Surface;
export const VisibilityEnum = register(VISIBILITIES, 'Visibility');
export type VisibilityEnum = Visibility;
export const RoleEnum = register(ROLES, 'Role');
export type RoleEnum = Role;
export const KeyScopeEnum = register(KEY_SCOPES, 'KeyScope');
export type KeyScopeEnum = KeyScope;
export const ApiKeyKindEnum = register(API_KEY_KINDS, 'ApiKeyKind');
export type ApiKeyKindEnum = ApiKeyKind;
export const HandlerKindEnum = register(HANDLER_KINDS, 'HandlerKind');
export type HandlerKindEnum = HandlerKind;
export const HttpMethodEnum = register(HTTP_METHODS, 'HttpMethod');
export type HttpMethodEnum = HttpMethod;
export const SignatureSchemeEnum = register(SIGNATURE_SCHEMES, 'SignatureScheme');
export type SignatureSchemeEnum = SignatureScheme;
export const DocumentKindEnum = register(DOCUMENT_KINDS, 'DocumentKind');
export type DocumentKindEnum = DocumentKind;
export const FieldTypeEnum = register(FIELD_TYPES, 'FieldType');
export type FieldTypeEnum = FieldType;
export const SecretKindEnum = register(SECRET_KINDS, 'SecretKind');
export type SecretKindEnum = SecretKind;
export const ModelProviderEnum = register(MODEL_PROVIDERS, 'ModelProvider');
export type ModelProviderEnum = ModelProvider;
export const MessageDirectionEnum = register(MESSAGE_DIRECTIONS, 'MessageDirection');
export type MessageDirectionEnum = MessageDirection;
export const MessageChannelEnum = register(MESSAGE_CHANNELS, 'MessageChannel');
export type MessageChannelEnum = MessageChannel;
export const RedactPresetEnum = register(REDACT_PRESETS, 'RedactPreset', { nameOf: (v) => v });
export type RedactPresetEnum = RedactPreset;
export const ActivityKindEnum = register(ACTIVITY_KINDS, 'ActivityKind');
export type ActivityKindEnum = ActivityKind;
export const DeliveryStatusEnum = register(DELIVERY_STATUSES, 'WebhookDeliveryStatus', {
  description: 'PENDING: waiting for its next attempt; RUNNING: being processed; DONE: ran; FAILED: gave up after its last attempt',
});
export type DeliveryStatusEnum = DeliveryStatus;

/** The direction of a record sort key (the Document API's `"asc"` / `"desc"`). */
export const SortDirectionEnum = register(['asc', 'desc'] as const, 'SortDirection');
export type SortDirectionEnum = 'asc' | 'desc';
