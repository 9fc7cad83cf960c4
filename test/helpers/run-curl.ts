import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';

// The console's ready `curl` commands, run as a person pasting them would.

/**
 * Runs a `curl` command as the console shows it and returns what it printed (the answer's body):
 * with curl itself when this machine has it, else the same request with fetch.
 */
export async function runCurl(command: string): Promise<string> {
  if (await hasCurl()) {
    const { stdout } = await promisify(execFile)('sh', ['-c', `${command} -sS --fail-with-body`]);
    return stdout;
  }
  const quoted = (re: RegExp) => [...command.matchAll(re)].map((m) => m[1]!.replace(/'\\''/g, "'"));
  const [url] = quoted(/curl(?: -X \w+)? '((?:[^']|'\\'')*)'/g);
  const headers = Object.fromEntries(
    quoted(/-H '((?:[^']|'\\'')*)'/g).map((h) => [h.slice(0, h.indexOf(':')), h.slice(h.indexOf(':') + 1).trim()]),
  );
  const [body] = quoted(/-d '((?:[^']|'\\'')*)'/g);
  const method = /-X (\w+)/.exec(command)?.[1] ?? 'GET';
  const res = await fetch(url!, { method, headers, body });
  expect(res.status, await res.clone().text()).to.equal(200);
  return res.text();
}

async function hasCurl(): Promise<boolean> {
  try {
    await promisify(execFile)('curl', ['--version']);
    return true;
  } catch {
    return false;
  }
}
