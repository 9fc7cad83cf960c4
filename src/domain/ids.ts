import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Random bytes are drawn a pool at a time: one call to the system's generator serves 256 ids. */
const POOL = Buffer.alloc(16 * 256);
let used = POOL.length;

/** A new random identifier such as `agt_8k2m…` (prefix names the entity). */
export function newId(prefix: string): string {
  if (used === POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  let out = '';
  for (let i = used; i < used + 16; i++) out += ALPHABET[POOL[i]! % 36];
  used += 16;
  return `${prefix}_${out}`;
}

/**
 * Whether a decoded path parameter can name a stored entity. Ids never contain U+0000, which
 * PostgreSQL can neither store nor compare (querying with it fails): such a parameter names nothing.
 */
export function canNameEntity(id: string): boolean {
  return !id.includes('\u0000');
}

/** A path parameter as it may appear in messages and the activity log (U+0000 shown as U+FFFD). */
export function printableParam(id: string): string {
  return id.replace(/\u0000/g, '\uFFFD');
}
