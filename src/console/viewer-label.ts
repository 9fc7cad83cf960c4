// A .ts module of its own (not in viewer.tsx), so the unit tests can import it without JSX.

/** A role as people read it. */
export const ROLE_NAMES: Record<'ADMIN' | 'MEMBER' | 'VIEWER', string> = {
  ADMIN: 'Admin',
  MEMBER: 'Member',
  VIEWER: 'Viewer',
};
const ROLE_LABELS: Record<string, string> = ROLE_NAMES;

/**
 * How the header names the signed-in member: name and role ("Ada Lovelace · Admin"). A name that
 * only repeats the role (the first start's member is called "Admin") gives way to the email, so the
 * header never reads "Admin · Admin".
 */
export function viewerLabel(viewer: { name: string; email: string; role: string }): string {
  const role = ROLE_LABELS[viewer.role] ?? viewer.role.charAt(0) + viewer.role.slice(1).toLowerCase();
  const name = viewer.name.trim();
  const who = name && name.toLowerCase() !== role.toLowerCase() ? name : viewer.email.trim();
  return who && who.toLowerCase() !== role.toLowerCase() ? `${who} · ${role}` : role;
}
