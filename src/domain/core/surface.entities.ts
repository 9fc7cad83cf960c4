// Entities of surfaces as the domain sees them. Repositories map rows to these explicitly.

export const SURFACES = [
  'HTTP_API',
  'DOCUMENT_API',
  'MCP',
  'WIDGET',
  'WEBHOOKS',
  'OPENAI',
  'A2A',
  'EMAIL',
  'SMS',
  'SCHEDULE',
] as const;
export type Surface = (typeof SURFACES)[number];

/**
 * Surfaces a new agent starts with turned off: those added after the first five, which a member
 * turns on on purpose (an agent that existed before keeps them off too, see `surfacesOf`).
 */
export const SURFACES_OFF_BY_DEFAULT: ReadonlySet<Surface> = new Set<Surface>([
  'OPENAI',
  'A2A',
  'EMAIL',
  'SMS',
  'SCHEDULE',
]);

export interface SurfaceSetting {
  enabled: boolean;
  activityLogging: boolean;
}
export type Surfaces = Record<Surface, SurfaceSetting>;

/** A new agent's surface settings: every surface on, but those off by default; activity logged everywhere. */
export function defaultSurfaces(): Surfaces {
  return Object.fromEntries(
    SURFACES.map((s) => [s, { enabled: !SURFACES_OFF_BY_DEFAULT.has(s), activityLogging: true }]),
  ) as Surfaces;
}

/**
 * The settings stored for an agent, completed: a surface added since the agent was last written
 * has no stored setting and reads as a new agent's (off, logged).
 */
export function surfacesOf(stored: Partial<Surfaces>): Surfaces {
  return Object.fromEntries(
    SURFACES.map((s) => [s, stored[s] ?? { enabled: false, activityLogging: true }]),
  ) as Surfaces;
}
