import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Page } from 'playwright-core';

/**
 * The client side of an OAuth sign-in as a hosted MCP client runs it: a redirect endpoint on a port
 * of its own that receives the authorization code, and the MCP SDK's client provider that keeps the
 * registration, the PKCE verifier and the tokens in memory.
 */
export class TestOAuthClient implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  stored: OAuthTokens | undefined;
  verifier = '';
  /** Where the SDK sent the person (the authorization request). */
  authorizationUrl: URL | undefined;
  /** The query of the last request to the redirect endpoint. */
  callback: URLSearchParams | undefined;
  private server: http.Server | undefined;
  redirectUrl = '';

  constructor(
    readonly name: string,
    /** A Client ID Metadata Document URL: the client uses it as its id instead of registering. */
    readonly clientMetadataUrl?: string,
  ) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      this.callback = new URL(req.url ?? '/', 'http://x').searchParams;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('connected');
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.redirectUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/**
 * The person's part in a browser: open the authorization URL, sign in with a member token when the
 * consent page asks, approve (or deny); returns the code the client's redirect endpoint received.
 */
export async function approveInBrowser(page: Page, client: TestOAuthClient, memberToken: string, decision: 'approve' | 'deny' = 'approve'): Promise<URLSearchParams> {
  client.callback = undefined;
  await page.goto(client.authorizationUrl!.href);
  const token = page.getByLabel('Member token');
  const approve = page.locator('#approve');
  await Promise.race([token.waitFor(), approve.waitFor()]);
  if (await token.isVisible()) {
    await token.fill(memberToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await page.locator(decision === 'approve' ? '#approve' : '#deny').click();
  try {
    await page.waitForURL((u) => u.href.startsWith(client.redirectUrl), { timeout: 15_000 });
  } catch (err) {
    throw new Error(`the browser did not come back to the client: at ${page.url()}: ${(await page.locator('body').innerText()).slice(0, 500)}`, { cause: err });
  }
  return client.callback!;
}
