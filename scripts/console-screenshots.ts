// `npm run docs:screenshots`: the console's pictures in docs/images, taken from a real service
// with a real agent (the fake model server stands in for the model). Also prints the time to first
// render on loopback.
import path from 'node:path';
import { startConsoleHarness } from '../test/helpers/console-browser.js';

const OUT = path.resolve(import.meta.dirname, '../docs/images');

const h = await startConsoleHarness('console_screenshots');
if (!h) process.exit(1);
try {
  const { createAgent } = await h.gql(
    'mutation { createAgent(input: {name: "Support bot", description: "Answers questions about orders", instructions: "You answer questions about orders politely and briefly.", defaultModel: "house-model"}) { id } }',
  );
  const agent = createAgent.id as string;
  const { createAgentApiKey } = await h.gql(
    `mutation($a: ID!) {
      addHttpEndpoint(agentId: $a, input: {path: "orders/{id}/summary", methods: [POST], handler: {prompt: "Summarise order {{params.id}} for the customer."}}) { id }
      echo: addHttpEndpoint(agentId: $a, input: {path: "echo/{word}", methods: [GET], handler: {script: "return { word: request.params.word, q: request.query };"}}) { id }
      createAgentApiKey(agentId: $a, name: "backend") { key }
    }`,
    { a: agent },
  );
  const key = createAgentApiKey.key as string;
  const call = (p: string, init: RequestInit = {}) =>
    fetch(`${h.svc.url}/agents/${agent}/api/${p}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
    }).then((r) => r.text());
  for (let i = 0; i < 6; i += 1)
    await call(`orders/${40 + i}/summary`, { method: 'POST', body: JSON.stringify({ note: `order ${40 + i}` }) });
  for (const w of ['hello', 'world', 'again']) await call(`echo/${w}?x=1`);
  await fetch(`${h.svc.url}/agents/${agent}/api/echo/nokey`);

  const page = h.page;
  const started = Date.now();
  await page.goto(`${h.svc.url}/console`);
  await page.getByLabel('Token').waitFor();
  console.log(`first render of the sign-in page: ${Date.now() - started} ms`);
  await h.signIn();
  const shots: [string, string][] = [
    [`/console/agents/${agent}`, 'console-agent.png'],
    [`/console/agents/${agent}/http`, 'console-http-api.png'],
    [`/console/agents/${agent}/activity`, 'console-activity.png'],
    [`/console/agents/${agent}/usage`, 'console-usage.png'],
  ];
  for (const [address, file] of shots) {
    await page.goto(`${h.svc.url}${address}`);
    await page.waitForFunction(
      () => !(globalThis as any).document.querySelector('main [role="status"] .mantine-Loader-root'),
      undefined,
      { timeout: 20_000 },
    );
    await page.waitForTimeout(800);
    await page.screenshot({ path: path.join(OUT, file) });
    console.log(`docs/images/${file}`);
  }
} finally {
  await h.stop();
}
