import { Invalid } from './errors.js';

/** Position in a list ordered newest first by (createdAt, id). */
export interface ListPosition {
  createdAt: Date;
  id: string;
}

/** Opaque cursor of a list position: base64url of `<createdAt ISO>|<id>`. */
export function encodeCursor(p: ListPosition): string {
  return Buffer.from(`${p.createdAt.toISOString()}|${p.id}`).toString('base64url');
}

/** The position of a cursor made by {@link encodeCursor}; anything else is Invalid (`after`). */
export function decodeCursor(c: string): ListPosition {
  const [iso, id] = Buffer.from(c, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(iso ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) throw new Invalid('after: not a cursor returned by this API', 'after');
  return { createdAt, id };
}
