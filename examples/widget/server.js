// @ts-check
// A shop page with the chat widget, and the proxy that keeps the agent key on this server.
//
//   AGENT_ID=agt_… AGENT_API_KEY=ak_… node examples/widget/server.js
//
// Environment: SERVICE_URL (default http://localhost:3000), AGENT_ID and AGENT_API_KEY (required),
// PORT (default 8080; 0 picks a free port), HOST (default 127.0.0.1), WIDGET_COOKIE_SECRET
// (≥ 32 characters; without it visitors start over whenever this server restarts).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createChatProxy } from '../../packages/widget-proxy/index.js';

/** @param {string} message */
function fail(message) {
  console.error(`examples/widget: ${message}`);
  process.exit(1);
}

/** @param {string} name */
function required(name) {
  const value = process.env[name]?.trim();
  if (!value) fail(`${name} is required (see the comment at the top of examples/widget/server.js)`);
  return /** @type {string} */ (value);
}

/** @param {string} text */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const serviceUrl = (process.env.SERVICE_URL?.trim() || 'http://localhost:3000').replace(/\/+$/, '');
const agentId = required('AGENT_ID');
const apiKey = required('AGENT_API_KEY');
const host = process.env.HOST?.trim() || '127.0.0.1';
const portText = process.env.PORT?.trim() || '8080';
const port = Number(portText);
if (!/^\d+$/.test(portText) || port > 65535) fail(`PORT must be a port number (0–65535), got '${portText}'`);

/** @type {ReturnType<typeof createChatProxy>} */
let proxy;
try {
  proxy = createChatProxy({
    serviceUrl,
    agentId,
    apiKey,
    path: '/chat',
    cookieSecret: process.env.WIDGET_COOKIE_SECRET || undefined,
    onError: (err) => console.error('chat proxy:', err),
  });
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}

const page = readFileSync(new URL('./index.html', import.meta.url), 'utf8').replaceAll(
  '{{SERVICE_URL}}',
  escapeHtml(serviceUrl),
);

const server = createServer(async (req, res) => {
  if (await proxy.handle(req, res)) return;
  const path = (req.url ?? '/').split('?', 1)[0];
  if (path === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : page);
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('Not found');
});

server.on('error', (err) => fail(`cannot listen on ${host}:${portText}: ${err.message}`));
server.listen(port, host, () => {
  const address = server.address();
  const actual = address && typeof address === 'object' ? address.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  console.log(`Example page: http://${shown}:${actual}/`);
});

for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.once(signal, () => process.exit(0));
