import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientConfigs, serverName } from '../../packages/cli/src/shared/mcp-configs.js';

// Issue 51, item 8: the MCP client configurations in the README, the console and the CLI agree.
// The console's MCP tab and `aes mcp config` build theirs with the one shared module; the README
// shows what that module makes for an agent named "Support bot", placeholder and all.

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The `jsonc` blocks of the README's MCP client section, parsed. */
function readmeConfigs(): unknown[] {
  const readme = read('README.md');
  const start = readme.indexOf('\n## Use an agent from an MCP client');
  const end = readme.indexOf('\nWhat the MCP server answers:', start);
  expect(start, 'the README has its MCP section').to.be.greaterThan(0);
  return [...readme.slice(start, end).matchAll(/```jsonc\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));
}

describe('MCP client configurations: README, console and CLI', () => {
  it("the README's blocks are what the shared module makes, in its order", () => {
    const url = 'http://localhost:3000/agents/<agentId>/mcp';
    const made = clientConfigs(url, serverName('Support bot')).map((c) => c.config);
    expect(readmeConfigs()).to.deep.equal(made);
  });

  it('the console and the CLI build theirs with that module', () => {
    expect(read('src/console/pages/agent/mcp-connect.tsx')).to.include(
      "from '../../../../packages/cli/src/shared/mcp-configs.js'",
    );
    expect(read('packages/cli/src/commands/mcp.js')).to.include("from '../shared/mcp-configs.js'");
  });

  it('the console offers to create a key and fill it in', () => {
    const connect = read('src/console/pages/agent/mcp-connect.tsx');
    expect(connect).to.include('Create a key and fill it in');
    expect(connect).to.include('clientConfigs(url, serverName(agentName), made?.key)');
  });
});
