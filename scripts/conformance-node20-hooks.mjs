// Module resolution hooks for running @modelcontextprotocol/conformance on Node 20.
//
// Its bundle imports `globSync` from `fs`, which Node has only since 22, so on Node 20 the CLI dies
// at load time before any scenario runs. It uses globSync only in its `tier-check` command, which
// scripts/mcp-conformance.ts never runs. scripts/mcp-conformance.ts registers these hooks (with
// `node --import`) only when `fs.globSync` is missing: inside that package, `fs` becomes Node's fs
// plus a globSync that says it is unavailable. Nothing else is touched.

const SHIM =
  'data:text/javascript,' +
  encodeURIComponent(
    "export * from 'node:fs'; export { default } from 'node:fs';" +
      " export function globSync() { throw new Error('fs.globSync needs Node 22 or later'); }",
  );

export async function resolve(specifier, context, next) {
  const fromConformance = context.parentURL?.includes('/@modelcontextprotocol/conformance/') ?? false;
  if (fromConformance && (specifier === 'fs' || specifier === 'node:fs')) return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}
