// Entities of surfaces as the domain sees them. Repositories map rows to these explicitly.

export const SURFACES = ['HTTP_API', 'DOCUMENT_API', 'MCP', 'WIDGET', 'WEBHOOKS'] as const;
export type Surface = (typeof SURFACES)[number];

export interface SurfaceSetting {
  enabled: boolean;
  activityLogging: boolean;
}
export type Surfaces = Record<Surface, SurfaceSetting>;
