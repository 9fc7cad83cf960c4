/** What the resource server reads of an access token (never its value). */
export interface AccessTokenFacts {
  grantId: string;
  clientId: string;
  /** The member who approved the client. */
  accountId: string;
  /** The resources the token was issued for (RFC 8707): one agent's MCP URL. */
  audience: string[];
  expiresAt: Date | null;
}

/** Finds an access token the authorization server issued, on whichever instance. */
export interface OAuthTokenReader {
  findAccessToken(value: string): Promise<AccessTokenFacts | null>;
}
