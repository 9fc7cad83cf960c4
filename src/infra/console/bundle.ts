import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { runEsbuild } from '../esbuild-runner.js';

/** One file of the built console, served at `/console/assets/<name>`. */
export interface ConsoleAsset {
  name: string;
  contentType: string;
  code: Buffer;
  gzip: Buffer;
}

/** The built console: its script and stylesheet (names carry a content hash, so they are cached for good). */
export interface ConsoleBundle {
  script: string;
  stylesheet: string;
  assets: Map<string, ConsoleAsset>;
}

/** What `npm run build` writes next to the compiled service, and what a compiled start serves from. */
export const PREBUILT_DIR = 'dist/console';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Run from source (tsx): `src/infra/console`; compiled: `dist/src/infra/console`. */
const fromSource = import.meta.url.endsWith('.ts');
const projectRoot = path.resolve(here, fromSource ? '../../..' : '../../../..');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

function asset(name: string, code: Buffer): ConsoleAsset {
  return { name, contentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream', code, gzip: gzipSync(code, { level: 9 }) };
}

function bundleOf(files: { name: string; code: Buffer }[]): ConsoleBundle {
  const assets = new Map(files.map((f) => [f.name, asset(f.name, f.code)]));
  const script = files.find((f) => f.name.endsWith('.js'))?.name;
  const stylesheet = files.find((f) => f.name.endsWith('.css'))?.name;
  if (!script || !stylesheet) throw new Error('The console build made no script or no stylesheet');
  return { script, stylesheet, assets };
}

/**
 * Bundles `src/console` (React, Mantine, urql) with esbuild: one minified ES module and one
 * stylesheet, named by their content. Needs the console's packages (devDependencies).
 */
export async function buildConsoleFiles(): Promise<{ name: string; code: Buffer }[]> {
  const source = path.join(projectRoot, 'src/console');
  const result = await runEsbuild({
    entryPoints: { console: path.join(source, 'main.tsx') },
    tsconfig: path.join(source, 'tsconfig.json'),
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome111', 'firefox115', 'safari16.4'],
    platform: 'browser',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    entryNames: '[name]-[hash]',
    outdir: path.join(projectRoot, PREBUILT_DIR),
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles.map((f) => ({ name: path.basename(f.path), code: Buffer.from(f.contents) }));
}

/** Writes a fresh build to `dist/console` (for `npm run build` and the production image). */
export async function writePrebuiltConsole(): Promise<string[]> {
  const files = await buildConsoleFiles();
  const dir = path.join(projectRoot, PREBUILT_DIR);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const f of files) fs.writeFileSync(path.join(dir, f.name), f.code);
  return files.map((f) => path.join(PREBUILT_DIR, f.name));
}

function readPrebuilt(): ConsoleBundle | null {
  const dir = path.join(projectRoot, PREBUILT_DIR);
  if (!fs.existsSync(dir)) return null;
  const files = fs.readdirSync(dir).filter((n) => n in CONTENT_TYPES || Object.keys(CONTENT_TYPES).includes(path.extname(n)));
  if (!files.length) return null;
  return bundleOf(files.map((name) => ({ name, code: fs.readFileSync(path.join(dir, name)) })));
}

let built: Promise<ConsoleBundle> | null = null;

/**
 * The console, kept for the life of the process. A compiled start serves what `npm run build`
 * wrote to `dist/console`; a start from source (or a compiled one without that directory) builds
 * it from `src/console` on first use (a failed build is retried).
 */
export function consoleBundle(): Promise<ConsoleBundle> {
  built ??= (async () => (!fromSource && readPrebuilt()) || bundleOf(await buildConsoleFiles()))().catch((err: unknown) => {
    built = null;
    throw err;
  });
  return built;
}
