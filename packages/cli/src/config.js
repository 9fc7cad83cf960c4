import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, EXIT } from './errors.js';

// Where `aes login` keeps {url, token, workspace?}: AES_CONFIG_DIR, else $XDG_CONFIG_HOME/aes, else
// ~/.config/aes. The directory is 0700 and the file 0600: the token is a personal GraphQL token.
// `workspace` is the slug every request names in AES-Workspace (a PERSON token acts there).

/** @param {NodeJS.ProcessEnv} env */
export function configDir(env = process.env) {
  if (env.AES_CONFIG_DIR) return path.resolve(env.AES_CONFIG_DIR);
  const base = env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(os.homedir(), '.config');
  return path.join(base, 'aes');
}

export function configFile(env = process.env) {
  return path.join(configDir(env), 'config.json');
}

/** @returns {{ url?: string, token?: string, workspace?: string }} */
export function readConfig(env = process.env) {
  const file = configFile(env);
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') return {};
    throw new CliError(`cannot read ${file}: ${/** @type {Error} */ (err).message}`);
  }
  try {
    const value = JSON.parse(text);
    if (!value || typeof value !== 'object') throw new Error('not an object');
    return {
      url: typeof value.url === 'string' ? value.url : undefined,
      token: typeof value.token === 'string' ? value.token : undefined,
      workspace: typeof value.workspace === 'string' && value.workspace ? value.workspace : undefined,
    };
  } catch {
    throw new CliError(`${file} is not valid JSON: run \`aes login\` again, or delete the file`);
  }
}

/** Writes the config file with mode 0600 in a directory with mode 0700. */
export function writeConfig(value, env = process.env) {
  const dir = configDir(env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const file = configFile(env);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
  return file;
}

/** Checks and normalises a service URL: http(s), no trailing slash. */
export function normaliseUrl(raw) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`'${raw}' is not a URL: give the service's address, e.g. https://aes.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`'${raw}' is not an http(s) URL`);
  if (url.username || url.password)
    throw new CliError('the URL must not hold a user name or password: the token is asked for separately');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * The service URL, token and workspace to use: AES_URL / AES_TOKEN / AES_WORKSPACE over the config
 * file. The saved workspace goes with the saved token: with AES_TOKEN only AES_WORKSPACE names one.
 * @returns {{ url: string, token: string, workspace?: string }}
 */
export function credentials(env = process.env) {
  const stored = readConfig(env);
  const url = env.AES_URL || stored.url;
  const token = env.AES_TOKEN || stored.token;
  if (!url || !token) {
    throw new CliError(`not logged in: run \`aes login --url URL\`, or set AES_URL and AES_TOKEN`, {
      exitCode: EXIT.AUTH,
    });
  }
  const workspace = env.AES_WORKSPACE || (env.AES_TOKEN ? undefined : stored.workspace);
  return { url: normaliseUrl(url), token, ...(workspace ? { workspace: workspaceRef(workspace) } : {}) };
}

/**
 * Checks a workspace slug or id as given on the command line or in AES_WORKSPACE.
 * @param {string} raw
 */
export function workspaceRef(raw) {
  const ref = raw.trim();
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(ref))
    throw new CliError(`'${raw.slice(0, 100)}' is not a workspace slug or id: \`aes workspaces list\` shows yours`);
  return ref;
}

/** The service URL alone (for calls made with an agent key). */
export function serviceUrl(env = process.env) {
  const url = env.AES_URL || readConfig(env).url;
  if (!url) throw new CliError('no service URL: run `aes login --url URL`, or set AES_URL', { exitCode: EXIT.AUTH });
  return normaliseUrl(url);
}
