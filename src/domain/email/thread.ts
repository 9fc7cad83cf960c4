/** Longest message id kept (a real one is well under 100 characters; longer is junk or an attack). */
export const MAX_MESSAGE_ID_CHARS = 250;
/** Ids kept in References, and the characters they may take together (a header line stays well under 998). */
export const MAX_REFERENCES = 20;
export const MAX_REFERENCES_CHARS = 1800;

/** `<left@right>` (RFC 5322 §3.6.4): a token without `@` is not an id, whatever wraps it in brackets. */
const MSG_ID = /^<[^<>\s@]+@[^<>\s]+>$/;

/** The message ids found in a header value (or values), in order, bracketed; junk between them is skipped. */
export function messageIds(value: string | readonly string[] | null | undefined): string[] {
  if (!value) return [];
  const text = typeof value === 'string' ? value : value.join(' ');
  const ids: string[] = [];
  for (const [token] of text.matchAll(/<[^<>]*>|[^\s<>,]+@[^\s<>,]+/g)) {
    const id = token.startsWith('<') ? token : `<${token}>`;
    if (MSG_ID.test(id) && id.length <= MAX_MESSAGE_ID_CHARS) ids.push(id);
  }
  return ids;
}

/**
 * References bounded as RFC 5322 §3.6.4 suggests for a long thread: the first id (the thread's
 * root) and the most recent ones, duplicates removed, at most MAX_REFERENCES ids and
 * MAX_REFERENCES_CHARS characters, so a thread can never grow a header past what servers accept.
 */
export function boundedReferences(ids: readonly string[]): string[] {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const [first, ...rest] = unique as [string, ...string[]];
  const kept: string[] = [];
  let chars = first.length;
  for (let i = rest.length - 1; i >= 0 && kept.length < MAX_REFERENCES - 1; i--) {
    const id = rest[i]!;
    if (chars + 1 + id.length > MAX_REFERENCES_CHARS) break;
    chars += 1 + id.length;
    kept.unshift(id);
  }
  return [first, ...kept];
}

/** The thread a message belongs to: the first of References, else In-Reply-To, else its own id. */
export function threadIdOf(
  references: readonly string[],
  inReplyTo: string | null,
  messageId: string | null,
): string | null {
  return references[0] ?? inReplyTo ?? messageId;
}
