import { useEffect, useState } from 'react';
import { AGENT_TABS, type AgentTab } from './agent-tabs.js';

// The console's own pages live under /console; the server answers every such path with the same
// HTML shell, so a reload or a shared link opens the same page (and the same tab).

// The agent page's tabs (ids, labels, groups) are in agent-tabs.ts, which needs no browser.
export { AGENT_TABS, type AgentTab };

/** The workspace's sections. */
export const WORKSPACE_SECTIONS = ['members', 'keys', 'secrets', 'models', 'teams', 'events', 'settings'] as const;
export type WorkspaceSection = (typeof WORKSPACE_SECTIONS)[number];

export type Route =
  | { page: 'agents' }
  | { page: 'agent'; id: string; tab: AgentTab }
  | { page: 'workspace'; section: WorkspaceSection }
  | { page: 'account' }
  | { page: 'deployment' };

function oneOf<T extends string>(list: readonly T[], value: string | undefined, fallback: T): T {
  return value !== undefined && (list as readonly string[]).includes(value) ? (value as T) : fallback;
}

export function parseRoute(pathname: string): Route {
  const agent = /^\/console\/agents\/([^/]+)(?:\/([^/]+))?\/?$/.exec(pathname);
  if (agent) return { page: 'agent', id: decodeURIComponent(agent[1]!), tab: oneOf(AGENT_TABS, agent[2], 'overview') };
  const workspace = /^\/console\/workspace(?:\/([^/]+))?\/?$/.exec(pathname);
  if (workspace) return { page: 'workspace', section: oneOf(WORKSPACE_SECTIONS, workspace[1], 'members') };
  if (/^\/console\/account\/?$/.test(pathname)) return { page: 'account' };
  if (/^\/console\/deployment\/?$/.test(pathname)) return { page: 'deployment' };
  return { page: 'agents' };
}

export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'agent':
      return `/console/agents/${encodeURIComponent(route.id)}${route.tab === 'overview' ? '' : `/${route.tab}`}`;
    case 'workspace':
      return `/console/workspace/${route.section}`;
    case 'account':
      return '/console/account';
    case 'deployment':
      return '/console/deployment';
    default:
      return '/console/agents';
  }
}

const listeners = new Set<() => void>();

/** Goes to a page of the console without reloading (`replace`: without a new history entry). */
export function navigate(route: Route, replace = false): void {
  if (replace) window.history.replaceState(null, '', hrefOf(route));
  else window.history.pushState(null, '', hrefOf(route));
  for (const l of listeners) l();
}

/** The current page; follows navigate() and the browser's back and forward buttons. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.pathname));
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** A link's click handler: a plain click navigates inside the console, a modified one opens as usual. */
export function linkClick(route: Route) {
  return (event: {
    preventDefault(): void;
    button: number;
    metaKey: boolean;
    ctrlKey: boolean;
    shiftKey: boolean;
    altKey: boolean;
  }) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(route);
  };
}
