// A model's base URL may carry credentials (`https://user:key@host/v1`, `…/v1?api-key=…`). Only
// admins see it as stored; everyone else, and every error message, sees it masked.

const MASK = '***';

/**
 * The URL with its user info, query and fragment replaced by `***`: scheme, host, port and path
 * stay readable (which server a model calls). A URL with none of them is returned unchanged;
 * one that does not parse is masked whole.
 */
export function maskUrlCredentials(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return MASK;
  }
  // A user name alone is often the credential (`https://<token>@host`), so user info goes whole.
  const userInfo = u.username !== '' || u.password !== '';
  if (!userInfo && u.search === '' && u.hash === '') return url;
  return `${u.protocol}//${userInfo ? `${MASK}@` : ''}${u.host}${u.pathname}${u.search ? `?${MASK}` : ''}${u.hash ? `#${MASK}` : ''}`;
}

/** The text with every http(s) URL in it masked (provider errors quote the URL they failed on). */
export function maskUrlCredentialsIn(text: string): string {
  return text.replace(/\bhttps?:\/\/[^\s"'<>`]+/gi, (url) => maskUrlCredentials(url));
}
