import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/infra/config.js';
import { ClientMetadataDocuments, type AddressLookup } from '../../src/infra/oauth/client-metadata-document.js';
import { hostAllowed } from '../../src/infra/oauth/client-id-url.js';
import { isPublicAddress } from '../../src/infra/oauth/public-address.js';
import { refusal } from '../helpers/cimd-server.js';

// What is refused before anything is looked up or fetched, and which addresses count as public.

describe('Client ID Metadata Document URLs and addresses', () => {
  it('refuses client_id URLs the CIMD draft forbids, without a DNS lookup', async () => {
    let lookups = 0;
    const lookup: AddressLookup = async () => (lookups++, [{ address: '93.184.216.34', family: 4 }]);
    const d = new ClientMetadataDocuments({ lookup });
    const bad = [
      'https://client.example',
      'https://client.example?x=1',
      'https://client.example/oauth/client.json#frag',
      'https://user:pw@client.example/oauth/client.json',
      'https://user@client.example/oauth/client.json',
      'https://client.example/oauth/../client.json',
      'https://client.example/./client.json',
      'https://client.example/oauth/%2e%2E/client.json',
      'https://client.example/oauth\\client.json',
      'https://client.example/oauth/client .json',
      'https://client.example/oauth/\tclient.json',
      'client.example/oauth/client.json',
      'ftp://client.example/oauth/client.json',
      `https://client.example/${'a'.repeat(2100)}`,
    ];
    for (const id of bad) await refusal(d.resolve(id), 'bad_client_id');
    expect(lookups).to.equal(0);
  });

  it('matches allowed hosts as host or host:port, IPv6 in brackets', () => {
    expect(hostAllowed('localhost', 8080, ['localhost'])).to.equal(true);
    expect(hostAllowed('localhost', 8080, ['localhost:8080'])).to.equal(true);
    expect(hostAllowed('localhost', 8081, ['localhost:8080'])).to.equal(false);
    expect(hostAllowed('[::1]', 443, ['[::1]:443'])).to.equal(true);
    expect(hostAllowed('cimd.test', 443, [' CIMD.test '])).to.equal(true);
    expect(hostAllowed('evil.cimd.test', 443, ['cimd.test'])).to.equal(false);
    expect(hostAllowed('localhost', 80, [])).to.equal(false);
  });

  it('counts only ordinary unicast addresses as public', () => {
    for (const a of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2a00:1450:4001::200e']) {
      expect(isPublicAddress(a), a).to.equal(true);
    }
    const inward = [
      '127.0.0.1',
      '127.255.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.251',
      '192.0.2.1',
      '198.18.0.1',
      '240.0.0.1',
      '::',
      '::1',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      'fec0::1',
      '2001:db8::1',
      '2001::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
      'not-an-ip',
    ];
    for (const a of inward) expect(isPublicAddress(a), a).to.equal(false);
  });

  it('counts local-use NAT64 (64:ff9b:1::/48) and IPv4-compatible (::/96) addresses as not public', () => {
    for (const a of [
      '64:ff9b:1::a00:1',
      '64:ff9b:1::808:808',
      '64:ff9b:1:ffff:ffff:ffff:ffff:ffff',
      '::a00:1',
      '::808:808',
      '::7f00:1',
      '::ffff:ffff',
    ]) {
      expect(isPublicAddress(a), a).to.equal(false);
    }
    // Just outside both blocks: ordinary unicast.
    for (const a of ['64:ff9b:2::808:808', '0:0:0:0:1::808:808']) expect(isPublicAddress(a), a).to.equal(true);
  });

  it('OAUTH_UNAPPROVED_CLIENTS_MAX and OAUTH_REGISTRATIONS_PER_ADDRESS_HOUR: 1,000 and 20 by default, validated', () => {
    expect(loadConfig({}).oauthRegistration).to.deep.equal({ unapprovedClientsMax: 1000, perAddressPerHour: 20 });
    expect(
      loadConfig({ OAUTH_UNAPPROVED_CLIENTS_MAX: '50', OAUTH_REGISTRATIONS_PER_ADDRESS_HOUR: '0' }).oauthRegistration,
    ).to.deep.equal({ unapprovedClientsMax: 50, perAddressPerHour: 0 });
    expect(() => loadConfig({ OAUTH_UNAPPROVED_CLIENTS_MAX: '0' })).to.throw(
      ConfigError,
      /OAUTH_UNAPPROVED_CLIENTS_MAX/,
    );
    expect(() => loadConfig({ OAUTH_REGISTRATIONS_PER_ADDRESS_HOUR: 'many' })).to.throw(
      ConfigError,
      /OAUTH_REGISTRATIONS_PER_ADDRESS_HOUR/,
    );
  });

  it('OAUTH_CLIENT_HOSTS_ALLOWED is read as a list of hosts; none when unset', () => {
    expect(loadConfig({}).oauthClientHostsAllowed).to.deep.equal([]);
    expect(
      loadConfig({ OAUTH_CLIENT_HOSTS_ALLOWED: 'localhost:8080, cimd.test ,[::1]:9000' }).oauthClientHostsAllowed,
    ).to.deep.equal(['localhost:8080', 'cimd.test', '[::1]:9000']);
    expect(() => loadConfig({ OAUTH_CLIENT_HOSTS_ALLOWED: 'http://localhost' })).to.throw(
      ConfigError,
      /OAUTH_CLIENT_HOSTS_ALLOWED/,
    );
  });
});
