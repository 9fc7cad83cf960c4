// Ready-to-paste MCP client configurations for an agent's MCP URL — the shapes the console shows
// (src/console/mcp-configs.ts; kept in step by test/e2e/cli.test.ts). Without a key each names a
// placeholder, or in VS Code asks for the key.

export const KEY_PLACEHOLDER = '<your agent key (ak_…)>';
export const CLIENTS = ['claude', 'cursor', 'vscode'];

/** The agent's MCP server URL. */
export function mcpUrl(origin, agentId) {
  return `${origin}/agents/${encodeURIComponent(agentId)}/mcp`;
}

/** A server name clients show: the agent's name in lower case, words joined by dashes. */
export function serverName(agentName) {
  return (
    agentName
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'agent'
  );
}

/**
 * @param {'claude' | 'cursor' | 'vscode'} id
 * @param {string} url
 * @param {string} name
 * @param {string} [key] the agent key to put in; a placeholder (or VS Code's prompt) without one
 * @returns {{ id: string, client: string, file: string, config: object }}
 */
export function clientConfig(id, url, name, key) {
  if (id === 'claude') {
    return {
      id,
      client: 'Claude Desktop',
      // Claude Desktop's config file starts local (stdio) servers; mcp-remote bridges to the URL with the key header.
      file: 'claude_desktop_config.json (Settings → Developer → Edit Config)',
      config: {
        mcpServers: {
          [name]: {
            command: 'npx',
            args: ['-y', 'mcp-remote', url, '--header', 'X-Agent-Access-Key:${AGENT_KEY}'],
            env: { AGENT_KEY: key ?? KEY_PLACEHOLDER },
          },
        },
      },
    };
  }
  if (id === 'cursor') {
    return {
      id,
      client: 'Cursor',
      file: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
      config: { mcpServers: { [name]: { url, headers: { 'X-Agent-Access-Key': key ?? KEY_PLACEHOLDER } } } },
    };
  }
  return {
    id,
    client: 'VS Code',
    file: key
      ? '.vscode/mcp.json (keep a file holding a key out of git)'
      : '.vscode/mcp.json (VS Code asks for the key once and keeps it out of the file)',
    config: key
      ? { servers: { [name]: { type: 'http', url, headers: { 'X-Agent-Access-Key': key } } } }
      : {
          inputs: [{ type: 'promptString', id: 'agent-key', description: 'Agent key', password: true }],
          servers: { [name]: { type: 'http', url, headers: { 'X-Agent-Access-Key': '${input:agent-key}' } } },
        },
  };
}
