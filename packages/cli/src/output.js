import { stringify } from 'yaml';
import { CliError } from './errors.js';

// Output for people (tables, colour, a spinner on a terminal) and for scripts (-o json).

/**
 * Whether to colour: `--color` forces it, `--no-color` or NO_COLOR (any value) turns it off,
 * otherwise only when the stream is a terminal.
 * @param {NodeJS.WriteStream} stream
 * @param {boolean | undefined} flag the --color / --no-color option (undefined when not given)
 */
export function useColour(stream, flag) {
  if (flag === true) return true;
  if (flag === false) return false;
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  return Boolean(stream.isTTY);
}

/** @param {boolean} on */
export function palette(on) {
  const wrap = (/** @type {number} */ open, /** @type {number} */ close) => (/** @type {string} */ s) =>
    on ? `\x1b[${open}m${s}\x1b[${close}m` : s;
  return {
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    bold: wrap(1, 22),
    dim: wrap(2, 22),
  };
}

/**
 * Runs `fn`, showing a spinner with `label` on stderr while it runs — only when stderr is a
 * terminal, and only after a short moment (fast calls show nothing).
 * @template T
 * @param {string} label
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withSpinner(label, fn) {
  const err = process.stderr;
  if (!err.isTTY || process.env.AES_NO_SPINNER) return fn();
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let i = 0;
  let shown = false;
  const timer = setInterval(() => {
    shown = true;
    err.write(`\r${frames[i++ % frames.length]} ${label}…`);
  }, 80);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
    if (shown) err.write('\r\x1b[2K');
  }
}

/** Prints a value as pretty JSON on stdout. */
export function printJson(value) {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export function printYaml(value) {
  process.stdout.write(stringify(value, { lineWidth: 0 }));
}

/**
 * A plain text table: a header row, columns padded to their widest cell.
 * @param {string[]} headers
 * @param {(string | number | null | undefined)[][]} rows
 */
export function table(headers, rows) {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return (
    cells
      .map((r) =>
        r
          .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i])))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/**
 * Checks an -o value against the formats a command knows.
 * @param {string | undefined} value
 * @param {string[]} allowed
 * @param {string} fallback
 */
export function format(value, allowed, fallback) {
  const f = value ?? fallback;
  if (!allowed.includes(f)) throw new CliError(`unknown output format '${f}': use ${allowed.join(', ')}`);
  return f;
}
