import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { TEST_SECRETS_KEY } from './harness.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop: () => Promise<number | null>;
}

/**
 * How a started service is run: `npm start`'s `tsx src/main.ts`, or, with TEST_SERVICE_BUILD=dist,
 * `npm run start:prod`'s `node dist/src/main.js` (what the Dockerfile runs). CI sets the latter: it
 * has just compiled `dist` from the same tree, and the compiled start costs about a third less CPU
 * than loading the sources through tsx each time (docs/testing.md, "CI layout (issue 50)").
 */
export function serviceCommand(): string[] {
  if (process.env.TEST_SERVICE_BUILD === 'dist') {
    const main = path.join(ROOT, 'dist/src/main.js');
    if (!fs.existsSync(main))
      throw new Error(`TEST_SERVICE_BUILD=dist, but ${main} is missing: run npm run build first`);
    return [process.execPath, main];
  }
  return [process.execPath, '--import', 'tsx', 'src/main.ts'];
}

/**
 * Starts the service the way `npm start` does (`serviceCommand`) with the given environment and
 * resolves once it prints its listening address; with `opts.nofile`, under that descriptor limit.
 */
export function startService(
  env: Record<string, string | undefined>,
  timeoutMs = 90_000,
  opts: { nofile?: number } = {},
): Promise<Started> {
  const clean = Object.fromEntries(
    Object.entries({ ...process.env, TEST_DATABASE_URL: undefined, ...env }).filter(([, v]) => v !== undefined),
  ) as NodeJS.ProcessEnv;
  const node = serviceCommand();
  // `nofile`: the process runs under `ulimit -n` (bash execs node, so the child's pid is node's).
  const child = opts.nofile
    ? spawn('bash', ['-c', `ulimit -n ${opts.nofile} && exec "$0" "$@"`, ...node], {
        cwd: ROOT,
        env: clean,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(node[0]!, node.slice(1), { cwd: ROOT, env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const stop = () =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = () => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!.replace(/\)$/, ''), output: () => out, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`service exited with ${code}:\n${out}`), { code, output: out }));
    });
  });
}

/** Runs the service expecting it to exit (a configuration error); resolves with code and output. */
export function runToExit(
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; output: string }> {
  return startService(env, timeoutMs).then(
    async (s) => {
      await s.stop();
      throw new Error(`expected the service to refuse to start, but it listened at ${s.url}`);
    },
    (err: { code?: number | null; output?: string }) => ({ code: err.code ?? null, output: err.output ?? String(err) }),
  );
}

/**
 * Where the started service keeps its data. Embedded by default; with TEST_DATABASE_URL, a schema
 * of its own in that PostgreSQL database (the harness of the same run owns and resets `public`),
 * created empty here and dropped by `drop`.
 */
export async function databaseEnv(
  schema: string,
): Promise<{ env: Record<string, string | undefined>; drop: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return { env: { DATABASE_URL: undefined, SECRETS_KEY: undefined }, drop: async () => {} };
  const run = async (sql: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`drop schema if exists ${schema} cascade; create schema ${schema}`);
  const withPath = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    env: { DATABASE_URL: withPath, SECRETS_KEY: TEST_SECRETS_KEY },
    drop: () => run(`drop schema if exists ${schema} cascade`),
  };
}

/** A GraphQL client for a started service: throws on GraphQL errors, returns `data`. */
export function graphqlClient(url: () => string, token: string) {
  return async (query: string, variables: Record<string, unknown> = {}): Promise<any> => {
    const res = await fetch(`${url()}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: any; errors?: unknown[] };
    if (body.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
    return body.data;
  };
}
