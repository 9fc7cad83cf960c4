// The baseline of `npm run bench -- surfaces`: a bare Koa route that does one INSERT into the same
// database as the service (PostgreSQL at BENCH_DATABASE_URL, or its own embedded database in
// memory), with the same driver and pool (the compiled `dist/src/infra/db.js`). Plain JavaScript,
// started with plain `node` and no loader, as `npm run start:prod` starts the service.
// Run as its own process; prints `listening on <url>`.
import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { closeDatabase, openDatabase } from '../dist/src/infra/db.js';

const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
const db = await openDatabase(databaseUrl ? { databaseUrl } : { dataDir: 'memory' });
await db.raw(
  'create table if not exists bench_baseline (id bigserial primary key, body jsonb not null, created_at timestamptz not null default now())',
);

const app = new Koa();
const router = new Router();
router.post('/insert', async (ctx) => {
  await db('bench_baseline').insert({ body: JSON.stringify(ctx.request.body ?? null) });
  ctx.body = { ok: true };
});
app.use(bodyParser());
app.use(router.routes());

const server = http.createServer(app.callback());
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
const stop = () => server.close(() => void closeDatabase(db).then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
