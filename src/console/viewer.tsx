import { createContext, useContext } from 'react';

export type Role = 'ADMIN' | 'MEMBER' | 'VIEWER';

/** One of the person's workspaces and their role there (`current`: the one the console shows). */
export interface ViewerWorkspace {
  workspace: { id: string; name: string; slug: string };
  role: Role;
  current: boolean;
}

export interface Viewer {
  id: string;
  name: string;
  email: string;
  role: Role;
  account: { id: string; name: string; email: string; operator: boolean; hasPassword: boolean };
  workspaces: readonly ViewerWorkspace[];
  /** The session was opened with a member token: it stays in that token's workspace. */
  memberToken?: boolean;
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

/** Whether the member may change things: a VIEWER is read-only (the server refuses their edits anyway). */
export function useCanWrite(): boolean {
  return useViewer().role !== 'VIEWER';
}

/** The workspace the console shows (from the viewer's memberships). */
export function currentWorkspace(viewer: Viewer): ViewerWorkspace | undefined {
  return viewer.workspaces.find((w) => w.current);
}
