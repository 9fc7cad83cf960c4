import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bundleOnce } from '../esbuild.js';

/** The chat widget as `GET /widget.js` serves it. */
export interface WidgetBundle {
  code: Buffer;
  gzip: Buffer;
  /** A strong validator of `code`, quoted as the ETag header wants it. */
  etag: string;
}

/** `src/widget/widget.ts`, from this file in `src/infra/widget` or in a compiled `dist/src/infra/widget`. */
function entryPoint(): string {
  const candidates = ['../../widget/widget.ts', '../../../../src/widget/widget.ts'].map((rel) =>
    fileURLToPath(new URL(rel, import.meta.url)),
  );
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error(`The widget source is missing (looked for ${candidates.join(', ')})`);
  return found;
}

/**
 * Bundles `src/widget` into one minified script with esbuild (an IIFE for the browsers of the
 * last few years: ES2019 syntax, no framework). Done once per process, in memory, when the
 * service starts — there is no build step to forget before `npm start`.
 */
async function buildWidget(): Promise<WidgetBundle> {
  const [output] = await bundleOnce({
    entryPoints: [entryPoint()],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2019'],
    platform: 'browser',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const code = Buffer.from(output!.contents);
  return {
    code,
    gzip: gzipSync(code, { level: 9 }),
    etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"`,
  };
}

let built: Promise<WidgetBundle> | null = null;

/** The widget, built on first use and kept for the life of the process (a failed build is retried). */
export function widgetBundle(): Promise<WidgetBundle> {
  built ??= buildWidget().catch((err: unknown) => {
    built = null;
    throw err;
  });
  return built;
}
