import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './process.js';

// The `aes` command line as a user runs it: the installed bin (node_modules/.bin/aes, linked by
// the root's `@agent-exposure/cli: file:packages/cli` devDependency) in a child process, with a
// configuration directory of its own and only the environment the test gives it.

const INSTALLED = path.join(ROOT, 'node_modules', '.bin', 'aes');
const inThisCheckout = (file: string) =>
  fs.existsSync(file) && fs.realpathSync(file).startsWith(fs.realpathSync(ROOT) + path.sep);

/**
 * The installed bin; but a git worktree that shares another checkout's node_modules would run that
 * checkout's CLI through it, so there it is this checkout's `packages/cli/bin/aes.js`.
 */
export const AES_BIN = inThisCheckout(INSTALLED) ? INSTALLED : path.join(ROOT, 'packages', 'cli', 'bin', 'aes.js');

export interface AesResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Aes {
  configDir: string;
  /** Runs `aes …` to its end; `input` is piped to stdin (closed at once otherwise: not a terminal). */
  run(
    args: string[],
    opts?: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number },
  ): Promise<AesResult>;
  /** Starts `aes …` and leaves it running (for --follow and streams). */
  start(
    args: string[],
    opts?: { env?: Record<string, string | undefined> },
  ): {
    child: ChildProcess;
    stdout: () => string;
    stderr: () => string;
    exited: Promise<number | null>;
    chunks: { at: number; text: string }[];
  };
  cleanup(): void;
}

/** A CLI runner whose configuration directory is a fresh temporary one. */
export function aesRunner(): Aes {
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-cli-config-'));
  const envFor = (extra: Record<string, string | undefined> = {}) => {
    const base: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      HOME: configDir,
      AES_CONFIG_DIR: path.join(configDir, 'aes'),
      ...extra,
    };
    return Object.fromEntries(Object.entries(base).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;
  };
  const start: Aes['start'] = (args, opts = {}) => {
    const child = spawn(process.execPath, [AES_BIN, ...args], {
      cwd: ROOT,
      env: envFor(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const chunks: { at: number; text: string }[] = [];
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      chunks.push({ at: Date.now(), text: d.toString() });
    });
    child.stderr!.on('data', (d: Buffer) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    return { child, stdout: () => out, stderr: () => err, exited, chunks };
  };
  return {
    configDir: path.join(configDir, 'aes'),
    start,
    async run(args, opts = {}) {
      const p = start(args, { env: opts.env });
      p.child.stdin!.end(opts.input ?? '');
      const timer = setTimeout(() => p.child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
      const code = await p.exited;
      clearTimeout(timer);
      return { code, stdout: p.stdout(), stderr: p.stderr() };
    },
    cleanup: () => fs.rmSync(configDir, { recursive: true, force: true }),
  };
}
