// The row ↔ entity mapping of each table (one file per repository's table).
export type { Mapping } from './mapping.js';
export { workspaces } from './workspaces.js';
export { teams } from './teams.js';
export { members } from './members.js';
export { memberTokens } from './member-tokens.js';
export { consoleSessions } from './console-sessions.js';
export { agents } from './agents.js';
export { apiKeys } from './api-keys.js';
export { httpEndpoints } from './http-endpoints.js';
export { mcpTools } from './mcp-tools.js';
export { webhooks } from './webhooks.js';
export { documents } from './documents.js';
export { exposures } from './exposures.js';
export { secrets } from './secrets.js';
export { models } from './models.js';
export { messages } from './messages.js';
export { activity } from './activity.js';
export { webhookDeliveries } from './webhook-deliveries.js';
