import { BlockList, isIP } from 'node:net';

/**
 * The relays of a comma list of IP addresses and CIDR blocks (`10.0.0.5, 192.0.2.0/24, 2001:db8::/32`).
 * Throws on an entry that is neither (the configuration check reports it).
 */
export function parseRelays(list: string): BlockList {
  const relays = new BlockList();
  for (const entry of list
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [ip, bits, extra] = entry.split('/');
    const family = isIP(ip ?? '');
    const prefix = bits === undefined ? undefined : Number(bits);
    const max = family === 6 ? 128 : 32;
    if (
      !family ||
      extra !== undefined ||
      (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= max && /^\d+$/.test(bits!)))
    ) {
      throw new Error(`"${entry}" is not an IP address or CIDR block`);
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) relays.addAddress(ip!, type);
    else relays.addSubnet(ip!, prefix, type);
  }
  return relays;
}

/** Whether `address` (as smtp-server reports it, IPv4 possibly mapped into IPv6) is one of the relays. */
export function isTrustedRelay(relays: BlockList, address: string): boolean {
  const plain = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  const family = isIP(plain);
  return family !== 0 && relays.check(plain, family === 6 ? 'ipv6' : 'ipv4');
}
