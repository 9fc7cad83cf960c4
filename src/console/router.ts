import { useEffect, useState } from 'react';

// The console's own pages live under /console; the server answers every such path with the same
// HTML shell, so a reload or a shared link opens the same page.

export type Route = { page: 'agents' } | { page: 'agent'; id: string };

export function parseRoute(pathname: string): Route {
  const m = /^\/console\/agents\/([^/]+)\/?$/.exec(pathname);
  if (m) return { page: 'agent', id: decodeURIComponent(m[1]!) };
  return { page: 'agents' };
}

export function hrefOf(route: Route): string {
  return route.page === 'agent' ? `/console/agents/${encodeURIComponent(route.id)}` : '/console/agents';
}

const listeners = new Set<() => void>();

/** Goes to a page of the console without reloading. */
export function navigate(route: Route): void {
  window.history.pushState(null, '', hrefOf(route));
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
  return (event: { preventDefault(): void; button: number; metaKey: boolean; ctrlKey: boolean; shiftKey: boolean; altKey: boolean }) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(route);
  };
}
