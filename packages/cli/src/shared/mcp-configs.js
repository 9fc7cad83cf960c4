// @ts-check
// Ready-to-paste MCP client configurations for an agent's MCP URL: what the console's MCP tab shows
// and `aes mcp config` prints, from this one module (plain ESM without dependencies, shipped in the
// CLI package and bundled into the console). Without a key each names a placeholder, or in VS Code
// asks for the key.

export const KEY_PLACEHOLDER = '<your agent key (ak_…)>';

/** @typedef {'claude' | 'cursor' | 'vscode'} ClientId */

/**
 * One client's configuration: `config` is the JSON to paste into `file`.
 * @typedef {{ id: ClientId, client: string, file: string, config: Record<string, unknown> }} ClientConfig
 */

/** @type {readonly ClientId[]} */
export const CLIENTS = ['claude', 'cursor', 'vscode'];

/**
 * The agent's MCP server URL.
 * @param {string} origin the service's origin, e.g. `https://aes.example.com`
 * @param {string} agentId
 */
export function mcpUrl(origin, agentId) {
  return `${origin}/agents/${encodeURIComponent(agentId)}/mcp`;
}

/**
 * A server name clients show: the agent's name in lower case, words joined by dashes.
 * @param {string} agentName
 */
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
 * One client's configuration.
 * @param {ClientId} id
 * @param {string} url the agent's MCP server URL
 * @param {string} name the server name the client shows
 * @param {string} [key] the agent key to put in; a placeholder (or VS Code's prompt) without one
 * @returns {ClientConfig}
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

/**
 * Every client's configuration, in the order the console shows them.
 * @param {string} url the agent's MCP server URL
 * @param {string} name the server name the client shows
 * @param {string} [key] as in {@link clientConfig}
 * @returns {ClientConfig[]}
 */
export function clientConfigs(url, name, key) {
  return CLIENTS.map((id) => clientConfig(id, url, name, key));
}
