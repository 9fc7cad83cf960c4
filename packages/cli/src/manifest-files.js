import fs from 'node:fs';
import path from 'node:path';
import { CliError } from './errors.js';

// A manifest given as a file, a directory of files (*.yaml, *.yml, in name order, not recursive)
// or `-` (stdin). The files are sent as one YAML stream, `---` between them; `where` maps a line of
// that stream back to its file and line, for errors.

/**
 * @typedef {{ file: string, start: number, lines: number }} Segment
 * @typedef {{ yaml: string, files: string[], where(line: number): { file: string, line: number } }} ManifestSource
 */

const MANIFEST_FILE = /\.ya?ml$/i;

/** @param {string} target */
function listFiles(target) {
  let stat;
  try {
    stat = fs.statSync(target);
  } catch {
    throw new CliError(`no such file or directory: ${target}`);
  }
  if (stat.isFile()) return [target];
  if (!stat.isDirectory()) throw new CliError(`${target} is neither a file nor a directory`);
  const files = fs
    .readdirSync(target, { withFileTypes: true })
    .filter((e) => e.isFile() && MANIFEST_FILE.test(e.name))
    .map((e) => path.join(target, e.name))
    .sort();
  if (!files.length) throw new CliError(`${target} holds no .yaml or .yml file`);
  return files;
}

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Reads the manifest files of each -f target.
 * @param {string[]} targets
 * @returns {Promise<ManifestSource>}
 */
export async function readManifest(targets) {
  /** @type {{ file: string, text: string }[]} */
  const parts = [];
  for (const target of targets) {
    if (target === '-') {
      parts.push({ file: '<stdin>', text: await readStdin() });
      continue;
    }
    for (const file of listFiles(target)) {
      let text;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${/** @type {Error} */ (err).message}`);
      }
      parts.push({ file, text });
    }
  }
  /** @type {Segment[]} */
  const segments = [];
  let yaml = '';
  let line = 1;
  parts.forEach(({ file, text }, i) => {
    if (i > 0) {
      yaml += '---\n';
      line += 1;
    }
    let body = text.replace(/^\uFEFF/, '');
    if (body && !body.endsWith('\n')) body += '\n';
    const lines = body.split('\n').length - 1;
    segments.push({ file, start: line, lines });
    yaml += body;
    line += lines;
  });
  return {
    yaml,
    files: parts.map((p) => p.file),
    where(n) {
      const seg = [...segments].reverse().find((s) => s.start <= n) ?? segments[0];
      return { file: seg.file, line: Math.max(1, n - seg.start + 1) };
    },
  };
}

/** A file name for an agent's manifest: its name in lower case, other characters as dashes. */
export function fileNameFor(agentName) {
  const base =
    agentName
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-.]+|-+$/g, '')
      .slice(0, 80) || 'agent';
  return `${base}.yaml`;
}

/**
 * Splits an export (documents joined by `---` lines) into its documents.
 * @param {string} text
 * @returns {string[]}
 */
export function splitDocuments(text) {
  return text.split(/^---\n/m).filter((d) => d.trim() !== '');
}
