import { registerEnumType } from 'type-graphql';

// GraphQL enums. Where the domain value is lower case, the object maps GraphQL names to it.

export enum SurfaceEnum {
  HTTP_API = 'HTTP_API',
  DOCUMENT_API = 'DOCUMENT_API',
  MCP = 'MCP',
  WIDGET = 'WIDGET',
  WEBHOOKS = 'WEBHOOKS',
}
export enum VisibilityEnum {
  WORKSPACE = 'WORKSPACE',
  PRIVATE = 'PRIVATE',
}
export enum RoleEnum {
  ADMIN = 'ADMIN',
  MEMBER = 'MEMBER',
}
export enum KeyScopeEnum {
  WORKSPACE_READ = 'WORKSPACE_READ',
}
export enum ApiKeyKindEnum {
  AGENT = 'AGENT',
  WORKSPACE = 'WORKSPACE',
}
export enum HandlerKindEnum {
  PROMPT = 'prompt',
  SCRIPT = 'script',
}
export enum HttpMethodEnum {
  GET = 'GET',
  POST = 'POST',
  PUT = 'PUT',
  PATCH = 'PATCH',
  DELETE = 'DELETE',
}
export enum SignatureSchemeEnum {
  HMAC_SHA256 = 'HMAC_SHA256',
  GITHUB = 'GITHUB',
  STRIPE = 'STRIPE',
  SLACK = 'SLACK',
  STANDARD_WEBHOOKS = 'STANDARD_WEBHOOKS',
}
export enum DocumentKindEnum {
  TEXT = 'TEXT',
  DATABASE = 'DATABASE',
}
export enum FieldTypeEnum {
  STRING = 'STRING',
  NUMBER = 'NUMBER',
  BOOLEAN = 'BOOLEAN',
  DATETIME = 'DATETIME',
  JSON = 'JSON',
}
export enum SecretKindEnum {
  WEBHOOK_SIGNING_SECRET = 'WEBHOOK_SIGNING_SECRET',
  MODEL_API_KEY = 'MODEL_API_KEY',
  GENERIC = 'GENERIC',
}
export enum ModelProviderEnum {
  OPENAI = 'openai',
  ANTHROPIC = 'anthropic',
  OPENAI_COMPATIBLE = 'openai-compatible',
}
export enum MessageDirectionEnum {
  INBOUND = 'inbound',
  OUTBOUND = 'outbound',
}
export enum MessageChannelEnum {
  EMAIL = 'email',
  SMS = 'sms',
}
export enum RedactPresetEnum {
  email = 'email',
  phone = 'phone',
  creditCard = 'creditCard',
}
export enum ActivityKindEnum {
  REQUEST = 'request',
  RUN = 'run',
}

registerEnumType(SurfaceEnum, { name: 'Surface', description: 'An agent surface' });
registerEnumType(VisibilityEnum, { name: 'Visibility' });
registerEnumType(RoleEnum, { name: 'Role' });
registerEnumType(KeyScopeEnum, { name: 'KeyScope' });
registerEnumType(ApiKeyKindEnum, { name: 'ApiKeyKind' });
registerEnumType(HandlerKindEnum, { name: 'HandlerKind' });
registerEnumType(HttpMethodEnum, { name: 'HttpMethod' });
registerEnumType(SignatureSchemeEnum, { name: 'SignatureScheme' });
registerEnumType(DocumentKindEnum, { name: 'DocumentKind' });
registerEnumType(FieldTypeEnum, { name: 'FieldType' });
registerEnumType(SecretKindEnum, { name: 'SecretKind' });
registerEnumType(ModelProviderEnum, { name: 'ModelProvider' });
registerEnumType(MessageDirectionEnum, { name: 'MessageDirection' });
registerEnumType(MessageChannelEnum, { name: 'MessageChannel' });
registerEnumType(RedactPresetEnum, { name: 'RedactPreset' });
registerEnumType(ActivityKindEnum, { name: 'ActivityKind' });
