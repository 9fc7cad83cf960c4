import type { Knex } from 'knex';

// Agents get a slug (their handle), unique in their workspace (docs/decisions.md, "Agent handles
// and manifest errors (issue 51)"). Existing agents get the slug their name gives, oldest first,
// so the first "Support bot" keeps `support-bot` and a later one becomes `support-bot-2`.
// The rule is copied here, not imported: a migration must keep doing what it did when it shipped.

const MAX_SLUG = 63;

function slugOf(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG - 4)
    .replace(/-+$/, '');
  return base || 'agent';
}

function freeSlug(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, MAX_SLUG - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.text('slug');
  });
  const rows = (await knex('agents')
    .select('id', 'workspace_id', 'name')
    .orderBy([{ column: 'workspace_id' }, { column: 'created_at' }, { column: 'id' }])) as {
    id: string;
    workspace_id: string;
    name: string;
  }[];
  const taken = new Map<string, Set<string>>();
  for (const row of rows) {
    const used = taken.get(row.workspace_id) ?? new Set<string>();
    taken.set(row.workspace_id, used);
    const slug = freeSlug(slugOf(row.name), used);
    used.add(slug);
    await knex('agents').where({ id: row.id }).update({ slug });
  }
  await knex.raw('ALTER TABLE agents ALTER COLUMN slug SET NOT NULL');
  await knex.schema.alterTable('agents', (t) => {
    t.unique(['workspace_id', 'slug'], { indexName: 'agents_workspace_id_slug_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.dropUnique(['workspace_id', 'slug'], 'agents_workspace_id_slug_unique');
    t.dropColumn('slug');
  });
}
