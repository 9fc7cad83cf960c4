// Runs parsePayload in a worker thread for test/unit/webhook-payload.test.ts, so that a parse that
// never ends can be stopped. Node 20 does not hand the parent's `--import tsx` to workers, so this
// plain JavaScript file registers tsx itself (as src/infra/sandbox does for its worker).
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { parsePayload } = await import(new URL('../../src/domain/webhooks/payload.ts', import.meta.url).href);
const form = parsePayload(workerData.headers, Buffer.from(workerData.text, 'utf8'));
const lists = Object.values(form).filter(Array.isArray);
parentPort.postMessage({
  keys: Object.keys(form),
  lengths: lists.map((l) => l.length),
});
