import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
  UnauthorizedError as V2Unauthorized,
} from '@modelcontextprotocol/client';
import {
  UnauthorizedError as V1Unauthorized,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Page } from 'playwright-core';
import { json, selfSignedCert, startDocServer, type DocServer } from './cimd-server.js';
import { startConsoleHarness, type ConsoleHarness } from './console-browser.js';

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
      const url = new URL(req.url ?? '/', 'http://x');
      // The browser also asks for /favicon.ico: only the redirect endpoint's request counts.
      if (url.pathname !== '/callback') return void res.writeHead(404).end();
      this.callback = url.searchParams;
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
  /** What the v2 client discovered before the redirect, to check the callback against. */
  discovered: OAuthDiscoveryState | undefined;
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovered;
  }
}

/**
 * The person's part in a browser: open the authorization URL, sign in with a member token when the
 * consent page asks, approve (or deny); returns the code the client's redirect endpoint received.
 */
export async function approveInBrowser(
  page: Page,
  client: TestOAuthClient,
  memberToken: string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URLSearchParams> {
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
    throw new Error(
      `the browser did not come back to the client: at ${page.url()}: ${(await page.locator('body').innerText()).slice(0, 500)}`,
      { cause: err },
    );
  }
  return client.callback!;
}

/** An MCP client connected with OAuth, of either SDK generation (v2 pinned to the 2026-07-28 era). */
export interface ConnectedClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(name: string, args: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

async function open(sdk: 'v1' | 'v2', url: URL, client: TestOAuthClient): Promise<ConnectedClient> {
  if (sdk === 'v1') {
    const c = new V1Client({ name: client.name, version: '1.0.0' });
    await c.connect(new V1Transport(url, { authProvider: client }));
    return {
      listTools: () => c.listTools(),
      callTool: (name, args) => c.callTool({ name, arguments: args }),
      close: () => c.close(),
    };
  }
  const c = new V2Client(
    { name: client.name, version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await c.connect(new V2Transport(url, { authProvider: client as any }));
  return {
    listTools: () => c.listTools(),
    callTool: (name, args) => c.callTool({ name, arguments: args }),
    close: () => c.close(),
  };
}

/**
 * Connects an SDK client to an MCP URL as a hosted client does: the first attempt is refused (401),
 * the SDK discovers the authorization server, registers (or uses its metadata document URL) and
 * sends the person to sign in and approve in the browser; the code is exchanged with PKCE and the
 * client connects again with the token.
 */
export async function connectWithOAuth(
  sdk: 'v1' | 'v2',
  url: URL,
  client: TestOAuthClient,
  page: Page,
  memberToken: string,
): Promise<ConnectedClient> {
  try {
    return await open(sdk, url, client);
  } catch (err) {
    if (!(err instanceof V1Unauthorized) && !(err instanceof V2Unauthorized)) throw err;
  }
  const callback = await approveInBrowser(page, client, memberToken);
  const code = callback.get('code');
  if (!code) throw new Error(`the redirect carried no code: ${callback.toString()}`);
  if (sdk === 'v1') await new V1Transport(url, { authProvider: client }).finishAuth(code);
  // The v2 client checks the callback's `iss` against the issuer it discovered (RFC 9207).
  else await new V2Transport(url, { authProvider: client as any }).finishAuth(callback);
  return open(sdk, url, client);
}

/**
 * The console harness of the OAuth tests, with a server of Client ID Metadata Documents the service
 * trusts: HTTPS with a certificate the service is told to trust, on a loopback host the operator
 * allows (OAUTH_CLIENT_HOSTS_ALLOWED); `env`, more settings. No document server where no certificate can be made; `h` is
 * null without Chromium (the caller skips).
 */
export async function startOAuthHarness(
  name: string,
  env: Record<string, string> = {},
): Promise<{ h: ConsoleHarness | null; docs: DocServer | undefined }> {
  const tls = selfSignedCert();
  const docs = tls ? await startDocServer(json({}), tls) : undefined;
  const h = await startConsoleHarness(
    name,
    docs
      ? {
          env: { ...env, OAUTH_CLIENT_HOSTS_ALLOWED: `127.0.0.1:${docs.port}` },
          build: { oauthClientMetadataCa: tls!.cert },
        }
      : { env },
  );
  return { h, docs };
}

/** Creates an agent (`input` of createAgent) with one MCP tool, `square`; returns its id. */
export async function agentWithSquareTool(h: ConsoleHarness, input: Record<string, unknown>): Promise<string> {
  const id = (await h.gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', { i: input }))
    .createAgent.id as string;
  await h.gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
    a: id,
    i: {
      name: 'square',
      description: 'Squares n',
      handler: { script: 'return { n: input.n * input.n };' },
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    },
  });
  return id;
}
