import { createContext, useContext } from 'react';

export interface Viewer {
  id: string;
  name: string;
  email: string;
  role: 'ADMIN' | 'MEMBER' | 'VIEWER';
}

const ViewerContext = createContext<Viewer | null>(null);

export const ViewerProvider = ViewerContext.Provider;

/** The signed-in member. Pages hide what only an admin may do (the server refuses it anyway). */
export function useViewer(): Viewer {
  const viewer = useContext(ViewerContext);
  if (!viewer) throw new Error('useViewer outside the signed-in console');
  return viewer;
}

export function useIsAdmin(): boolean {
  return useViewer().role === 'ADMIN';
}
