import { expect } from 'chai';
import { parseTenantTemplate, tenantBaseUrl, tenantOf } from '../../src/domain/workspace/tenant-host.js';
import { ConfigError, loadConfig } from '../../src/infra/config.js';

// TENANT_BASE_URL: which host names which workspace, for every Host header a client may send.

describe('tenant hosts (TENANT_BASE_URL)', () => {
  const template = parseTenantTemplate('https://{tenant}.agents.example.com');

  it('reads the slug of a tenant host, folding case, a trailing dot and a port', () => {
    expect(tenantOf('acme.agents.example.com', template)).to.equal('acme');
    expect(tenantOf('ACME.Agents.Example.COM', template)).to.equal('acme');
    expect(tenantOf('acme.agents.example.com.', template)).to.equal('acme');
    expect(tenantOf('acme.agents.example.com:8443', template)).to.equal('acme');
    expect(tenantOf('acme-eu-2.agents.example.com', template)).to.equal('acme-eu-2');
  });

  it('finds no tenant in the bare domain, other hosts or labels that are no slug', () => {
    for (const host of [
      undefined,
      '',
      'agents.example.com',
      '.agents.example.com',
      'a.b.agents.example.com',
      'acme.agents.example.com.evil.test',
      'acme.agents.example.org',
      'acmeagents.example.com',
      'xn--caf-dma.agents.example.com',
      'café.agents.example.com',
      '-acme.agents.example.com',
      'acme-.agents.example.com',
      'ac--me.agents.example.com',
      'ac_me.agents.example.com',
      `${'a'.repeat(64)}.agents.example.com`,
      `${'a'.repeat(300)}.agents.example.com`,
      'acme.agents.example.com..',
      'acme.agents.example.com:',
      'acme.agents.example.com:99999x',
      '[::1]:3000',
      '127.0.0.1:3000',
      'www.agents.example.com',
      'acme.agents.example.com@evil.test',
      'acme.agents.example.com/x',
    ])
      expect(tenantOf(host, template), String(host)).to.equal(null);
    expect(tenantOf('acme.agents.example.com', undefined)).to.equal(null);
  });

  it('takes {tenant} anywhere in the host as long as it is a whole label', () => {
    const inner = parseTenantTemplate('https://agents.{tenant}.example.com/');
    expect(tenantOf('agents.acme.example.com', inner)).to.equal('acme');
    expect(tenantOf('acme.example.com', inner)).to.equal(null);
    expect(inner.raw).to.equal('https://agents.{tenant}.example.com');
  });

  it('builds the base URL of a workspace host, with the template port or else the one given', () => {
    expect(tenantBaseUrl(template, 'acme')).to.equal('https://acme.agents.example.com');
    expect(tenantBaseUrl(template, 'acme', '4000')).to.equal('https://acme.agents.example.com:4000');
    const ported = parseTenantTemplate('https://{tenant}.agents.example.com:8443');
    expect(tenantBaseUrl(ported, 'acme', '4000')).to.equal('https://acme.agents.example.com:8443');
    expect(tenantOf('acme.agents.example.com:8443', ported)).to.equal('acme');
  });

  it('refuses templates that are not one whole-label {tenant} in an https host', () => {
    for (const [value, says] of [
      ['https://agents.example.com', 'exactly once'],
      ['https://{tenant}.{tenant}.example.com', 'exactly once'],
      ['https://x{tenant}.example.com', 'whole label'],
      ['https://{tenant}-x.example.com', 'whole label'],
      ['https://example.com/{tenant}', 'whole label'],
      ['https://{tenant}', 'domain after'],
      ['https://{tenant}.example.com/path', 'origin only'],
      ['https://u:p@{tenant}.example.com', 'origin only'],
      ['https://{tenant}.example.com?x=1', 'origin only'],
      ['ftp://{tenant}.example.com', 'https://'],
      ['http://{tenant}.agents.example.com', 'https://'],
      ['{tenant}.example.com', 'URL'],
    ])
      expect(() => parseTenantTemplate(value!), value).to.throw(says!);
  });

  it('allows http for hosts that stay on the machine or in tests', () => {
    expect(parseTenantTemplate('http://{tenant}.localhost:3000').port).to.equal('3000');
    expect(parseTenantTemplate('http://{tenant}.agents.test').protocol).to.equal('http:');
  });

  it('is read from the environment, and a bad value stops the start naming the variable', () => {
    expect(loadConfig({}).tenantBaseUrl).to.equal(undefined);
    expect(loadConfig({ TENANT_BASE_URL: 'https://{tenant}.agents.example.com' }).tenantBaseUrl).to.deep.include({
      after: ['agents', 'example', 'com'],
    });
    expect(() => loadConfig({ TENANT_BASE_URL: 'https://agents.example.com' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.includes('TENANT_BASE_URL');
  });
});
