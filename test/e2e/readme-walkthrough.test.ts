import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAKE_MODELS, startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { databaseEnv, ROOT, startService, type Started } from '../helpers/process.js';

// The README's walkthrough, run as a new user would: the service started the way `npm start`
// starts it, on a fresh database, with a keyless local OpenAI-compatible server in the environment
// (OPENAI_BASE_URL only, as with Ollama), then every `bash` block from "First steps" through the
// MCP and webhook sections run in order by bash, with the README's placeholders filled the way the
// README says: `export BASE=…` pointed at the started service, the admin token printed on first
// start, and each `export NAME='prefix_…'` from the earlier answers. Every answer
// must be free of errors and shaped like the JSON the README shows after the command, so the
// README cannot drift from the product.

interface Block {
  code: string;
  /** The JSON the README shows right after the block, if any. */
  expected: unknown;
  line: number;
}

/** The `bash` blocks of the walkthrough, each with the JSON block that follows it. */
export function walkthroughBlocks(readme: string): Block[] {
  const start = readme.indexOf('\n## First steps');
  const end = readme.indexOf('\n## Put the agent on a website');
  if (start < 0 || end < start) throw new Error('README: the walkthrough sections were not found');
  const part = readme.slice(start, end);
  const offset = readme.slice(0, start).split('\n').length;
  const fence = /```(\w*)\n([\s\S]*?)```/g;
  const blocks: Block[] = [];
  let m: RegExpExecArray | null;
  while ((m = fence.exec(part))) {
    const [, lang, body] = m;
    const line = offset + part.slice(0, m.index).split('\n').length - 1;
    if (lang === 'bash') blocks.push({ code: body!, expected: undefined, line });
    else if (lang === 'json' && blocks.length && blocks.at(-1)!.expected === undefined)
      blocks.at(-1)!.expected = JSON.parse(body!);
  }
  return blocks;
}

/**
 * Whether `actual` has the shape the README shows: every key shown is there, with a value of the
 * same kind; a shown string ending in `…` after a prefix such as `agt_` must start with it; other
 * shown strings without `…` must be equal.
 */
export function sameShape(expected: unknown, actual: unknown, at = '$'): string[] {
  if (expected === null) return actual === null ? [] : [`${at}: expected null`];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: expected a list`];
    if (actual.length < expected.length)
      return [`${at}: expected at least ${expected.length} items, got ${actual.length}`];
    return expected.flatMap((e, i) => sameShape(e, actual[i], `${at}[${i}]`));
  }
  if (typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: expected an object`];
    return Object.entries(expected as Record<string, unknown>).flatMap(([k, v]) =>
      k in actual ? sameShape(v, (actual as Record<string, unknown>)[k], `${at}.${k}`) : [`${at}.${k}: missing`],
    );
  }
  if (typeof expected === 'string') {
    if (typeof actual !== 'string') return [`${at}: expected a string`];
    const cut = expected.indexOf('…');
    if (cut < 0)
      return actual === expected ? [] : [`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
    const prefix = expected.slice(0, cut);
    return /^[a-z]+_$/.test(prefix) && !actual.startsWith(prefix) ? [`${at}: expected to start with ${prefix}`] : [];
  }
  return typeof actual === typeof expected ? [] : [`${at}: expected a ${typeof expected}`];
}

/** The value for `export NAME='prefix…'`: the longest `prefix…` token any earlier answer held (a key beats its shown prefix). */
function placeholderValue(prefix: string, answers: string[]): string | undefined {
  const re = new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[A-Za-z0-9_-]+`, 'g');
  let best: string | undefined;
  for (const a of answers) for (const m of a.matchAll(re)) if (!best || m[0].length >= best.length) best = m[0];
  return best;
}

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      { env, cwd: ROOT, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * Each JSON document in a block's output, in order: curl prints one per command without newlines,
 * a tool such as the MCP Inspector prints one over several lines. Text outside `{…}` is skipped.
 */
function jsonAnswers(stdout: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < stdout.length; i++) {
    const c = stdout[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && depth > 0 && --depth === 0) out.push(JSON.parse(stdout.slice(start, i + 1)));
  }
  return out;
}

describe('e2e: the README walkthrough, run verbatim', function () {
  this.timeout(240_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-readme-'));
  let fake: FakeOpenAi;
  let svc: Started;
  let database: Awaited<ReturnType<typeof databaseEnv>>;
  let adminToken: string;

  before(async () => {
    fake = await startOpenAiServer();
    // The provider lists both models step 5 configures (OpenAI's, then a local server's, which
    // replaces it as the default); its first answer is testModel's "OK".
    fake.setModelList([...FAKE_MODELS, 'gpt-4o-mini', 'gpt-4o', 'llama3.2']);
    fake.enqueue({ text: 'OK' });
    database = await databaseEnv('readme_walkthrough');
    svc = await startService(
      {
        PORT: '0',
        DATA_DIR: dataDir,
        ADMIN_TOKEN: undefined,
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: undefined,
        LOG_LEVEL: 'warn',
        ...database.env,
      },
      180_000,
    );
    const printed = /Admin token \(shown once, store it now\): (\S+)/.exec(svc.output());
    expect(printed, 'the first start prints the admin token').to.not.equal(null);
    adminToken = printed![1]!;
  });
  after(async () => {
    await svc?.stop();
    await fake?.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('every shell block from "First steps" through "Receive webhooks" succeeds in order, answering as the README shows', async () => {
    const blocks = walkthroughBlocks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.length).to.be.greaterThan(8);
    const vars: Record<string, string> = { ADMIN_TOKEN: adminToken };
    const answers: string[] = [];
    const env = () => ({ PATH: process.env.PATH, HOME: os.tmpdir(), ...vars }) as NodeJS.ProcessEnv;

    for (const block of blocks) {
      const where = `README.md:${block.line}`;
      // `export NAME='prefix…'` lines are the README's placeholders: fill them from the answers so
      // far (a block may create the object and name it a line later), so run the block in pieces.
      const pieces: Array<{ code: string; placeholder?: [string, string] }> = [{ code: '' }];
      for (const l of block.code.split('\n')) {
        const ph = /^export ([A-Z_]+)='([^'…]*)…'$/.exec(l.trim());
        // `export BASE=http://localhost:3000`: the address of the service the user started.
        if (/^export BASE=http:\/\/localhost:3000$/.test(l.trim())) vars.BASE = svc.url;
        else if (ph) pieces.push({ code: '', placeholder: [ph[1]!, ph[2]!] });
        else pieces.at(-1)!.code += `${l}\n`;
      }
      const r = { stdout: '' };
      for (const piece of pieces) {
        if (piece.placeholder) {
          const [name, prefix] = piece.placeholder;
          const value = placeholderValue(prefix, [...answers, r.stdout]);
          expect(value, `${where}: no earlier answer holds a ${prefix}… value for ${name}`).to.be.a('string');
          vars[name] = value!;
        }
        if (!piece.code.trim()) continue;
        const ran = await bash(`set -e\n${piece.code.replaceAll('http://localhost:3000', svc.url)}`, env());
        expect(ran.code, `${where} exited ${ran.code}: ${ran.stderr}\n${ran.stdout}`).to.equal(0);
        r.stdout += ran.stdout;
      }
      answers.push(r.stdout);
      if (!r.stdout.trim()) continue;
      if (r.stdout.startsWith('event:') || r.stdout.includes('\nevent: ')) {
        expect(r.stdout, `${where}: the stream ends with its result`).to.contain('event: done');
        expect(r.stdout).to.not.contain('event: error');
        continue;
      }
      const docs = jsonAnswers(r.stdout);
      expect(docs.length, `${where}: JSON answers expected, got ${r.stdout}`).to.be.greaterThan(0);
      for (const d of docs) {
        expect(d, `${where}: ${JSON.stringify(d)}`).to.not.have.any.keys('errors', 'error');
      }
      if (block.expected !== undefined) {
        expect(sameShape(block.expected, docs[0]), `${where}: answer ${JSON.stringify(docs[0])}`).to.deep.equal([]);
      }
    }

    // The prompt endpoint reached the model from the environment with the request, and after
    // configureModel (step 5, its local variant last) the run was priced.
    const prompted = fake.requests.filter((q) => JSON.stringify(q.body.messages).includes('Summarise the order'));
    expect(prompted.length).to.be.greaterThan(0);
    expect(prompted[0]!.body.model).to.equal('llama3.2');
    // Keyless: the service holds no key to send (the OpenAI client's placeholder is no secret).
    expect(prompted[0]!.headers.authorization).to.equal('Bearer not-needed');
    const summary = answers
      .map((a) => jsonAnswers(a))
      .flat()
      .find(
        (d) =>
          typeof (d as { output?: unknown }).output === 'string' &&
          String((d as { output: string }).output).includes('ACME'),
      ) as { output: string; credits: number; runId: string } | undefined;
    expect(summary, 'the prompt endpoint answered with the model output').to.not.equal(undefined);
    expect(summary!.output).to.contain('"orderId": "42"');
    expect(summary!.runId).to.match(/^run_/);
    expect(summary!.credits).to.be.greaterThan(0);
  });

  it("step 5 as the README says: against a local server that lists its models, OpenAI's model name is refused and the local variant is saved", async () => {
    const configure = walkthroughBlocks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).filter((b) =>
      b.code.includes('configureModel('),
    );
    const openai = configure.find((b) => b.code.includes('gpt-4o-mini'));
    const local = configure.find((b) => b.code.includes('llama3.2'));
    expect(openai, 'the OpenAI block').to.not.equal(undefined);
    expect(local, 'the local variant').to.not.equal(undefined);
    // A local server such as Ollama lists only what it serves.
    fake.setModelList(['llama3.2', 'llama3.1']);
    const env = { PATH: process.env.PATH, HOME: os.tmpdir(), BASE: svc.url, ADMIN_TOKEN: adminToken };
    const refused = jsonAnswers((await bash(openai!.code.replaceAll('http://localhost:3000', svc.url), env)).stdout);
    const errors = (refused[0] as { errors?: { message: string; extensions: { code: string } }[] }).errors;
    expect(errors?.[0]?.extensions.code).to.equal('BAD_USER_INPUT');
    expect(errors?.[0]?.message).to.contain("the provider does not list a model 'gpt-4o-mini'; close names it offers:");
    const saved = jsonAnswers((await bash(local!.code.replaceAll('http://localhost:3000', svc.url), env)).stdout);
    expect(sameShape(local!.expected, saved[0])).to.deep.equal([]);
  });
});
