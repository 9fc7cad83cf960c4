import ipaddr from 'ipaddr.js';
import type { Knex } from 'knex';
import { q } from '../store/pg-errors.js';

/** A registered client no member approved is removed this long after its registration (seconds). */
export const UNAPPROVED_CLIENT_SECONDS = 3600;
const HOUR_MS = 3_600_000;

/** OAUTH_UNAPPROVED_CLIENTS_MAX and OAUTH_REGISTRATIONS_PER_ADDRESS_HOUR (0: no per-address limit). */
export interface RegistrationLimits {
  unapprovedClientsMax: number;
  perAddressPerHour: number;
}

/** Whether a registration may go on; if not, when to try again and why. */
export type RegistrationAdmission =
  { ok: true } | { ok: false; retryAfter: number; reason: 'address_rate' | 'unapproved_clients'; description: string };

/**
 * The key a remote address is counted under: an IPv4 address (also when mapped into IPv6) as it
 * is, an IPv6 address by its /64 — what one subscriber is given, so a host cannot step around the
 * limit by changing its interface id.
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address.slice(0, 100);
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4);
  return `${parts.join(':')}::/64`;
}

const unapproved = (db: Knex) =>
  db('oauth_records').where({ model: 'Client' }).whereNotIn('id', db('mcp_grants').select('client_id'));

/**
 * Admits one anonymous registration from `address`: counted per address and hour in the database
 * (so the limit holds across instances sharing it), then held to the cap on unapproved clients.
 * Past the cap, unapproved clients older than an hour are pruned first; still past it, the
 * registration is refused until the oldest unapproved one ages out — refused, not evicting
 * another, so a flood cannot push out a client whose member is on the consent page.
 */
export async function admitRegistration(
  db: Knex,
  now: Date,
  address: string,
  limits: RegistrationLimits,
): Promise<RegistrationAdmission> {
  if (limits.perAddressPerHour > 0) {
    const windowStart = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
    const [row] = await q(() =>
      db('oauth_registration_counts')
        .insert({ address: addressKey(address), window_start: windowStart, n: 1 })
        .onConflict(['address', 'window_start'])
        .merge({ n: db.raw('?? + 1', ['oauth_registration_counts.n']) })
        .returning('n'),
    );
    if (Number(row.n) > limits.perAddressPerHour) {
      return {
        ok: false,
        reason: 'address_rate',
        retryAfter: Math.max(1, Math.ceil((windowStart.getTime() + HOUR_MS - now.getTime()) / 1000)),
        description: `At most ${limits.perAddressPerHour} client registrations per address and hour: try again later, or name the client by its metadata document URL (no registration needed)`,
      };
    }
  }
  const count = async () => Number(((await q(() => unapproved(db).count({ n: '*' }))) as { n: unknown }[])[0]!.n);
  if ((await count()) < limits.unapprovedClientsMax) return { ok: true };
  await pruneUnapprovedClients(db, now);
  if ((await count()) < limits.unapprovedClientsMax) return { ok: true };
  const [oldest] = (await q(() =>
    unapproved(db).select(db.raw(`min(coalesce((payload->>'client_id_issued_at')::bigint, 0)) as issued`)),
  )) as { issued: unknown }[];
  const ageOut = Number(oldest?.issued ?? 0) + UNAPPROVED_CLIENT_SECONDS - Math.floor(now.getTime() / 1000);
  return {
    ok: false,
    reason: 'unapproved_clients',
    retryAfter: Math.min(UNAPPROVED_CLIENT_SECONDS, Math.max(1, ageOut)),
    description: `The service holds ${limits.unapprovedClientsMax} registered clients no member has approved yet: try again later, or name the client by its metadata document URL (no registration needed)`,
  };
}

/** Removes registered clients no grant names an hour after their registration; how many. */
export async function pruneUnapprovedClients(db: Knex, now: Date): Promise<number> {
  const cutoff = Math.floor(now.getTime() / 1000) - UNAPPROVED_CLIENT_SECONDS;
  // Counted from `returning`: the embedded database's driver answers a bare delete without a count.
  const removed = await q(() =>
    unapproved(db)
      .whereRaw(`coalesce((payload->>'client_id_issued_at')::bigint, 0) < ?`, [cutoff])
      .delete()
      .returning('model'),
  );
  return removed.length;
}

/** Removes the registration counts of hours gone by. */
export async function pruneRegistrationCounts(db: Knex, now: Date): Promise<number> {
  const windowStart = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
  return (
    await q(() => db('oauth_registration_counts').where('window_start', '<', windowStart).delete().returning('address'))
  ).length;
}
