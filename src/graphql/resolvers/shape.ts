import type { Agent } from '../../domain/core/agent.entities.js';
import type { Handler } from '../../domain/entries/entry.entities.js';
import { SURFACES } from '../../domain/core/surface.entities.js';
import type { SurfaceEnum, SurfaceSetting } from './agent.types.js';
import type { HandlerKindEnum, HandlerOut } from './entry.types.js';

// Small output mappers shared by resolvers.

export function handlerOut(h: Handler): HandlerOut {
  return {
    kind: h.kind as HandlerKindEnum,
    prompt: h.kind === 'prompt' ? h.body : null,
    script: h.kind === 'script' ? h.body : null,
  };
}

export function surfacesOut(agent: Agent): SurfaceSetting[] {
  return SURFACES.map((s) => ({ surface: s as SurfaceEnum, ...agent.surfaces[s] }));
}
