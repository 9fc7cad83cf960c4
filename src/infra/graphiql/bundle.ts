import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bundleOnce } from '../esbuild.js';

/** One file of GraphiQL as `GET /graphql/assets/<name>` serves it. */
export interface GraphiqlAsset {
  /** `application/javascript`, `text/css` or `font/ttf`, with a charset for text. */
  type: string;
  code: Buffer;
  gzip: Buffer;
  /** A strong validator of `code`, quoted as the ETag header wants it. */
  etag: string;
}

/** The path the page loads its files from (also the bundle's public path, for the icon font). */
export const GRAPHIQL_ASSETS_PATH = '/graphql/assets/';

/** `src/graphiql/graphiql.tsx`, from this file in `src/infra/graphiql` or in a compiled `dist/src/infra/graphiql`. */
function entryPoint(): string {
  const candidates = ['../../graphiql/graphiql.tsx', '../../../../src/graphiql/graphiql.tsx'].map((rel) =>
    fileURLToPath(new URL(rel, import.meta.url)),
  );
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error(`The GraphiQL page source is missing (looked for ${candidates.join(', ')})`);
  return found;
}

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.ttf': 'font/ttf',
};

/**
 * Bundles `src/graphiql` (GraphiQL 5, React 19, Monaco) with esbuild: the page's module, its
 * lazily loaded chunks and its stylesheet, Monaco's three workers (editor, JSON, GraphQL) as
 * scripts of their own, and Monaco's icon font as a file. Minified, production React, no source maps; in memory, once per
 * process — there is no build step to forget before `npm start`.
 */
async function buildGraphiql(): Promise<Map<string, GraphiqlAsset>> {
  const entry = entryPoint();
  const root = path.resolve(path.dirname(entry), '../..');
  const common = {
    absWorkingDir: root,
    bundle: true,
    minify: true,
    target: ['es2020'],
    platform: 'browser',
    define: { 'process.env.NODE_ENV': '"production"' },
    outdir: path.join(root, 'dist/graphiql'),
    entryNames: '[name]',
    legalComments: 'none',
    logLevel: 'silent',
  } satisfies Parameters<typeof bundleOnce>[0];
  const [page, workers] = await Promise.all([
    // The page: an ES module whose dynamic imports (Monaco, and Prettier, which only "prettify"
    // needs) become chunks of their own, loaded when first needed.
    bundleOnce({
      ...common,
      entryPoints: { graphiql: entry },
      format: 'esm',
      splitting: true,
      chunkNames: 'chunk-[hash]',
      jsx: 'automatic',
      // Instead of src/graphiql/tsconfig.json, which extends the root one (not in the image).
      tsconfigRaw: { compilerOptions: { jsx: 'react-jsx', strict: true } },
      loader: { '.ttf': 'file' },
      // @graphiql/react imports Prettier's parsers by their old CommonJS names and destructures
      // `parsers` from them; bundled as CommonJS that is undefined ("Couldn't resolve parser"), so
      // "prettify" did nothing. The ES modules of the same plugins export it by name.
      alias: {
        'prettier/parser-graphql': 'prettier/plugins/graphql',
        'prettier/parser-babel': 'prettier/plugins/babel',
      },
      assetNames: '[name]-[hash]',
      publicPath: GRAPHIQL_ASSETS_PATH,
    }),
    // Monaco's workers: one classic script each, as `new Worker(url)` starts them.
    bundleOnce({
      ...common,
      entryPoints: {
        'editor.worker': 'monaco-editor/esm/vs/editor/editor.worker.js',
        'json.worker': 'monaco-editor/esm/vs/language/json/json.worker.js',
        'graphql.worker': 'monaco-graphql/esm/graphql.worker.js',
      },
      format: 'iife',
    }),
  ]);
  const outputs = [...page, ...workers];
  const assets = new Map<string, GraphiqlAsset>();
  for (const file of outputs) {
    const name = path.basename(file.path);
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const code = Buffer.from(file.contents);
    assets.set(name, {
      type,
      code,
      gzip: gzipSync(code, { level: 9 }),
      etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"`,
    });
  }
  return assets;
}

let built: Promise<Map<string, GraphiqlAsset>> | null = null;

/** GraphiQL's files by name, built on first use and kept for the life of the process (a failed build is retried). */
export function graphiqlBundle(): Promise<Map<string, GraphiqlAsset>> {
  built ??= buildGraphiql().catch((err: unknown) => {
    built = null;
    throw err;
  });
  return built;
}
