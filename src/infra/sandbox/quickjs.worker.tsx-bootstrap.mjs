// Starts quickjs.worker.ts in a worker thread when the service runs under tsx (development and
// tests). Node 20 does not apply the parent's `--import tsx` to workers, so the worker registers
// tsx itself. Plain JavaScript, so Node can load it before tsx is registered. A compiled build
// (dist/) starts quickjs.worker.js directly and does not use this file.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./quickjs.worker.ts', import.meta.url).href);
