import fs from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { graphqlClient, GraphQLFailure, resolveAgent } from '../client.js';
import { credentials } from '../config.js';
import { act } from '../action.js';
import { CliError, EXIT } from '../errors.js';
import { fileNameFor, readManifest, splitDocuments } from '../manifest-files.js';
import { format, palette, printJson, useColour } from '../output.js';
import { confirm } from '../prompt.js';

const EXPORT = 'query($ids: [ID!], $r: Boolean) { exportAgents(ids: $ids, withRecords: $r) }';
const PLAN = `query($y: String!, $p: Boolean) { planManifest(yaml: $y, prune: $p) {
  digest hasChanges changes { agent action path before after applied } missing { kind name agent field line column message } } }`;
const APPLY = `mutation($y: String!, $d: String!, $p: Boolean) { applyManifest(yaml: $y, planDigest: $d, prune: $p) {
  changed changes { agent action path applied } agents { name id action } } }`;

/**
 * @typedef {{ agent: string, action: 'CREATE' | 'UPDATE' | 'DELETE', path: string, before?: unknown, after?: unknown, applied: boolean }} Change
 * @typedef {{ kind: string, name: string, agent: string, field: string, line: number, column: number, message: string }} Missing
 */

/** @param {import('commander').Command} program */
export function registerManifests(program) {
  program
    .command('export')
    .description('Write agents as manifest YAML: to stdout, or one file per agent in a directory')
    .argument('[agents...]', 'agent slugs, ids or names (default: every agent you can see)')
    .option(
      '-o, --output <dir|json>',
      'a directory for one <slug>.yaml per agent; `json` prints {yaml, agents} (default: the YAML on stdout)',
    )
    .option('--with-records', 'include the records of database documents')
    .addHelpText(
      'after',
      `
Nothing secret is exported: secrets are named, never shown; keys are not part of a manifest.

Examples:
  $ aes export orders-bot > orders-bot.yaml
  $ aes export -o agents/              # every agent, agents/<slug>.yaml
  $ aes export orders-bot --with-records -o json`,
    )
    .action(
      act(async (refs, opts) => {
        const gql = graphqlClient(credentials());
        const ids = refs.length
          ? await Promise.all(refs.map(async (/** @type {string} */ r) => (await resolveAgent(gql, r)).id))
          : undefined;
        const { exportAgents: text } = await gql(EXPORT, { ids, r: Boolean(opts.withRecords) }, { label: 'Exporting' });
        const docs = splitDocuments(text).map((yaml) => {
          const metadata = parse(yaml)?.metadata;
          return { name: String(metadata?.name ?? 'agent'), slug: String(metadata?.slug ?? ''), yaml };
        });
        if (opts.output === 'json') return printJson({ yaml: text, agents: docs });
        if (opts.output === undefined) return void process.stdout.write(text);
        const dir = opts.output;
        fs.mkdirSync(dir, { recursive: true });
        const used = new Set();
        const written = [];
        for (const d of docs) {
          // The slug is unique in the workspace; the name is the fallback of a service without slugs.
          const base = d.slug || d.name;
          let file = fileNameFor(base);
          for (let n = 2; used.has(file); n++) file = fileNameFor(`${base}-${n}`);
          used.add(file);
          const target = path.join(dir, file);
          fs.writeFileSync(target, d.yaml);
          written.push(target);
        }
        process.stdout.write(
          `Wrote ${written.length} ${written.length === 1 ? 'file' : 'files'}:\n${written.map((f) => `  ${f}\n`).join('')}`,
        );
      }),
    );

  program
    .command('diff')
    .description('Show what applying manifest files would change (exit 2 when something would change)')
    .requiredOption('-f, --file <path...>', 'a manifest file, a directory of .yaml files, or - for stdin')
    .option('--prune', 'plan the deletion of entries the files do not list')
    .option('-o, --output <format>', 'text or json', 'text')
    .option('--color', 'colour the plan even when stdout is not a terminal')
    .option('--no-color', 'never colour')
    .addHelpText(
      'after',
      `
Exit codes: 0 no changes, 2 changes, 1 an error (an invalid manifest, or a secret, model or team
the files name and the workspace lacks), 4 not logged in.

Examples:
  $ aes diff -f orders-bot.yaml
  $ aes diff -f agents/ --prune -o json | jq .digest`,
    )
    .action(
      act(async (opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const gql = graphqlClient(credentials());
        const source = await readManifest(opts.file);
        const plan = await planFor(gql, source, Boolean(opts.prune));
        if (out === 'json') printJson({ ...plan, missing: plan.missing.map((m) => ({ ...m, ...located(source, m) })) });
        else printPlan(plan, source, palette(useColour(process.stdout, opts.color)), Boolean(opts.prune));
        if (plan.missing.length) return EXIT.ERROR;
        return plan.hasChanges ? EXIT.CHANGES : EXIT.OK;
      }),
    );

  program
    .command('apply')
    .description('Apply manifest files: show the plan, ask, then apply exactly that plan')
    .requiredOption('-f, --file <path...>', 'a manifest file, a directory of .yaml files, or - for stdin')
    .option('--prune', 'delete entries the files do not list')
    .option('-y, --yes', 'do not ask (needed when stdin is not a terminal, e.g. in CI)')
    .option('--digest <digest>', 'apply only if the plan is still this one (the digest from `aes diff -o json`)')
    .option('-o, --output <format>', 'text or json', 'text')
    .option('--color', 'colour the plan even when stdout is not a terminal')
    .option('--no-color', 'never colour')
    .addHelpText(
      'after',
      `
The apply is refused with CONFLICT (exit 3) when the workspace changed after the plan was made:
run \`aes diff\` again and review the new plan.

A manifest applies to the workspace of the token: a WORKSPACE token's own, or for a PERSON token
the one \`aes login --workspace\` or \`aes workspaces switch\` chose (AES_WORKSPACE overrides it).
\`aes whoami\` shows which.

Examples:
  $ aes apply -f orders-bot.yaml
  $ aes apply -f agents/ --prune --yes
  $ aes apply -f agents/ --yes --digest "$(aes diff -f agents/ -o json | jq -r .digest)"`,
    )
    .action(
      act(async (opts) => {
        const out = format(opts.output, ['text', 'json'], 'text');
        const c = palette(useColour(process.stdout, opts.color));
        const prune = Boolean(opts.prune);
        const creds = credentials();
        const gql = graphqlClient(creds);
        const source = await readManifest(opts.file);
        const plan = await planFor(gql, source, prune);
        if (out === 'text') printPlan(plan, source, c, prune);
        if (plan.missing.length) {
          throw new CliError(
            'not applied: the workspace lacks names the manifest uses (listed above); create them, then apply again',
            {
              details: out === 'json' ? plan.missing.map((m) => missingLine(source, m)) : [],
            },
          );
        }
        if (!plan.hasChanges && !opts.digest) {
          if (out === 'json') printJson({ changed: false, changes: [], agents: [], digest: plan.digest });
          return EXIT.OK;
        }
        if (!opts.yes) {
          if (!process.stdin.isTTY)
            throw new CliError(
              'not applied: stdin is not a terminal, so nobody can confirm — pass --yes to apply without asking',
            );
          if (!(await confirm(`Apply these changes to ${creds.url}?`))) {
            process.stderr.write('Not applied.\n');
            return EXIT.ERROR;
          }
        }
        let result;
        try {
          result = (
            await gql(APPLY, { y: source.yaml, d: opts.digest ?? plan.digest, p: prune }, { label: 'Applying' })
          ).applyManifest;
        } catch (err) {
          if (err instanceof GraphQLFailure && err.code === 'CONFLICT') {
            throw new CliError(`CONFLICT: not applied — ${err.message}`, {
              exitCode: EXIT.CONFLICT,
              details: [
                'The workspace changed after the plan was made. Run `aes diff` again, review the new plan, then apply.',
              ],
            });
          }
          throw manifestError(err, source);
        }
        if (out === 'json') return printJson({ ...result, digest: opts.digest ?? plan.digest });
        if (!result.changed)
          return void process.stdout.write('Nothing changed: the workspace already matches the files.\n');
        for (const a of result.agents) {
          const mark =
            a.action === 'CREATED'
              ? c.green('created')
              : a.action === 'UPDATED'
                ? c.yellow('updated')
                : c.dim('unchanged');
          process.stdout.write(`${mark}  ${a.name} (${a.id})\n`);
        }
        const n = result.changes.filter((/** @type {Change} */ ch) => ch.applied).length;
        process.stdout.write(`Applied ${n} ${n === 1 ? 'change' : 'changes'}.\n`);
      }),
    );
}

/**
 * @param {ReturnType<typeof graphqlClient>} gql
 * @param {import('../manifest-files.js').ManifestSource} source
 * @param {boolean} prune
 * @returns {Promise<{ digest: string, hasChanges: boolean, changes: Change[], missing: Missing[] }>}
 */
async function planFor(gql, source, prune) {
  try {
    return (await gql(PLAN, { y: source.yaml, p: prune }, { label: 'Planning' })).planManifest;
  } catch (err) {
    throw manifestError(err, source);
  }
}

/** A manifest's validation errors, each as file:line:column. */
function manifestError(err, source) {
  if (!(err instanceof GraphQLFailure)) return err;
  const issues = err.errors.flatMap((e) => /** @type {any[]} */ (e.extensions?.errors ?? []));
  if (!issues.length) return err;
  const details = issues.map((i) => {
    const at = i.line ? located(source, i) : { file: source.files[0], line: 0, column: 0 };
    const where = at.line ? `${at.file}:${at.line}:${at.column}` : at.file;
    return `${where}: ${i.field ? `${i.field}: ` : ''}${i.message}`;
  });
  return new CliError(
    `the manifest has ${issues.length === 1 ? 'an error' : `${issues.length} errors`}; nothing was changed`,
    { details },
  );
}

/** @param {import('../manifest-files.js').ManifestSource} source @param {{ line: number, column: number }} at */
function located(source, at) {
  const { file, line } = source.where(at.line);
  return { file, line, column: at.column };
}

function missingLine(source, m) {
  const at = located(source, m);
  return `${at.file}:${at.line}:${at.column}: ${m.kind.toLowerCase()} '${m.name}' (${m.agent}, ${m.field}): ${m.message}`;
}

/** A value as the lines a reviewer reads: strings as their lines, others as YAML. */
function valueLines(value) {
  if (value === undefined) return [];
  if (typeof value === 'string') return value.split('\n');
  if (value === null || typeof value !== 'object') return [JSON.stringify(value)];
  return stringify(value, { lineWidth: 0 }).replace(/\n$/, '').split('\n');
}

/**
 * @param {{ hasChanges: boolean, changes: Change[], missing: Missing[] }} plan
 * @param {import('../manifest-files.js').ManifestSource} source
 * @param {ReturnType<typeof palette>} c
 * @param {boolean} prune
 */
function printPlan(plan, source, c, prune) {
  const w = (/** @type {string} */ s) => process.stdout.write(s + '\n');
  const applied = plan.changes.filter((ch) => ch.applied);
  const held = plan.changes.filter((ch) => !ch.applied);
  if (!plan.changes.length) w('No changes: the workspace matches the files.');
  const agents = [...new Set(plan.changes.map((ch) => ch.agent))];
  for (const agent of agents) {
    w(c.bold(agent));
    for (const ch of plan.changes.filter((x) => x.agent === agent)) {
      if (ch.action === 'CREATE') {
        w(`  ${c.green(`+ create ${ch.path}`)}`);
        for (const l of valueLines(ch.after)) w(c.green(`      + ${l}`));
      } else if (ch.action === 'DELETE') {
        const note = ch.applied ? '' : c.dim('   (kept: not in the files; --prune deletes it)');
        w(`  ${c.red(`- delete ${ch.path}`)}${note}`);
        if (ch.applied) for (const l of valueLines(ch.before)) w(c.red(`      - ${l}`));
      } else {
        w(`  ${c.yellow(`~ update ${ch.path}`)}`);
        for (const l of valueLines(ch.before)) w(c.red(`      - ${l}`));
        for (const l of valueLines(ch.after)) w(c.green(`      + ${l}`));
      }
    }
  }
  if (plan.missing.length) {
    w('');
    w(c.red('Missing in the workspace (create them before applying):'));
    for (const m of plan.missing) w(`  ${missingLine(source, m)}`);
  }
  if (plan.changes.length) {
    w('');
    const counts = ['CREATE', 'UPDATE', 'DELETE'].map((a) => [a, applied.filter((ch) => ch.action === a).length]);
    w(
      `Plan: ${counts.map(([a, n]) => `${n} to ${String(a).toLowerCase()}`).join(', ')}${held.length ? `; ${held.length} kept (--prune deletes them)` : ''}.`,
    );
  }
}
