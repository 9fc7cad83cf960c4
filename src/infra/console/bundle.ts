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
  return {
    name,
    contentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream',
    code,
    gzip: gzipSync(code, { level: 9 }),
  };
}

/** The entry's files are named `console-<hash>`; tabs loaded on demand are chunks with other names. */
const ENTRY = /^console-[^.]+\.(js|css)$/;

function bundleOf(files: { name: string; code: Buffer }[]): ConsoleBundle {
  const assets = new Map(files.map((f) => [f.name, asset(f.name, f.code)]));
  const script = files.find((f) => ENTRY.test(f.name) && f.name.endsWith('.js'))?.name;
  const stylesheet = files.find((f) => ENTRY.test(f.name) && f.name.endsWith('.css'))?.name;
  if (!script || !stylesheet) throw new Error('The console build made no script or no stylesheet');
  return { script, stylesheet, assets };
}

/**
 * Bundles `src/console` (React, Mantine, urql) with esbuild: one minified ES module and one
 * stylesheet, named by their content, plus the chunks that sections load on demand. Needs the console's packages (devDependencies).
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
    // Heavy sections (the code editor, charts) load when first opened: their own chunks.
    splitting: true,
    chunkNames: 'chunk-[hash]',
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
  const files = fs
    .readdirSync(dir)
    .filter((n) => n in CONTENT_TYPES || Object.keys(CONTENT_TYPES).includes(path.extname(n)));
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
  built ??= (async () => (!fromSource && readPrebuilt()) || bundleOf(await buildConsoleFiles()))().catch(
    (err: unknown) => {
      built = null;
      throw err;
    },
  );
  return built;
}

/** A script's static imports of other files of the bundle (`import … from "./chunk-….js"`); dynamic `import()` is not followed. */
const STATIC_IMPORT = /(?:^|[;}\n])\s*import\s*(?:[\w$*{}\s,]*?from\s*)?["']\.\/([^"']+\.js)["']/g;

/**
 * What a browser must load before the console can render: the entry script and the chunks it
 * imports statically, with their gzipped size (the sections opened later are not counted).
 */
export function initialScripts(bundle: ConsoleBundle): { names: string[]; bytes: number; gzipBytes: number } {
  const seen = new Set<string>();
  const visit = (name: string) => {
    const file = bundle.assets.get(name);
    if (!file || seen.has(name)) return;
    seen.add(name);
    for (const m of file.code.toString('utf8').matchAll(STATIC_IMPORT)) visit(m[1]!);
  };
  visit(bundle.script);
  const files = [...seen].map((n) => bundle.assets.get(n)!);
  return {
    names: [...seen],
    bytes: files.reduce((n, f) => n + f.code.length, 0),
    gzipBytes: files.reduce((n, f) => n + f.gzip.length, 0),
  };
}
