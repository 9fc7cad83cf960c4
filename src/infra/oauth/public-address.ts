import ipaddr from 'ipaddr.js';

// Special-use blocks (RFC 6890 and successors) that ipaddr.js 1.x still classes as `unicast`.
const EXTRA_IPV4: [ipaddr.IPv4, number][] = [ipaddr.IPv4.parseCIDR('198.18.0.0/15')];
const EXTRA_IPV6: [ipaddr.IPv6, number][] = [
  ipaddr.IPv6.parseCIDR('100::/64'), // discard-only
  ipaddr.IPv6.parseCIDR('2001::/23'), // IETF protocol assignments (Teredo, ORCHID, benchmarking …)
  ipaddr.IPv6.parseCIDR('fec0::/10'), // deprecated site-local, still routed inside some networks
  ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'), // local-use NAT64 (RFC 8215): a translator of this network
  ipaddr.IPv6.parseCIDR('::/96'), // deprecated IPv4-compatible addresses: ::10.0.0.1 reaches inward
];

/**
 * Whether `address` (an IP literal) is an ordinary public unicast address. Everything else —
 * loopback, private, link-local, unique-local, CGNAT, multicast, broadcast, unspecified,
 * documentation and benchmarking blocks, and IPv6 forms that embed an IPv4 address (mapped,
 * NAT64, 6to4, Teredo) unless the embedded address is public — is not, nor is anything unparsable.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return isPublicV4(ip as ipaddr.IPv4);
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return isPublicV4(v6.toIPv4Address());
  return v6.range() === 'unicast' && !EXTRA_IPV6.some((cidr) => v6.match(cidr));
}

function isPublicV4(ip: ipaddr.IPv4): boolean {
  return ip.range() === 'unicast' && !EXTRA_IPV4.some((cidr) => ip.match(cidr));
}
