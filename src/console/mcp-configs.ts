// Ready-to-paste MCP client configurations for an agent's MCP URL. None holds a key: each names
// a placeholder (or asks for the key, in VS Code) that the person replaces with an agent key.

export const KEY_PLACEHOLDER = '<your agent key (ak_…)>';

/** The agent's MCP server URL on the origin the console was opened at. */
export function mcpUrl(origin: string, agentId: string): string {
  return `${origin}/agents/${encodeURIComponent(agentId)}/mcp`;
}

/** A server name clients show: the agent's name in lower case, words joined by dashes. */
export function serverName(agentName: string): string {
  return (
    agentName
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'agent'
  );
}

export interface ClientConfig {
  id: 'claude' | 'cursor' | 'vscode';
  client: string;
  file: string;
  json: string;
}

export function clientConfigs(url: string, name: string): ClientConfig[] {
  const text = (v: unknown) => JSON.stringify(v, null, 2);
  return [
    {
      id: 'claude',
      client: 'Claude Desktop',
      // Claude Desktop's config file starts local (stdio) servers; mcp-remote bridges to the URL with the key header.
      file: 'claude_desktop_config.json (Settings → Developer → Edit Config)',
      json: text({
        mcpServers: {
          [name]: {
            command: 'npx',
            args: ['-y', 'mcp-remote', url, '--header', 'X-Agent-Access-Key:${AGENT_KEY}'],
            env: { AGENT_KEY: KEY_PLACEHOLDER },
          },
        },
      }),
    },
    {
      id: 'cursor',
      client: 'Cursor',
      file: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
      json: text({ mcpServers: { [name]: { url, headers: { 'X-Agent-Access-Key': KEY_PLACEHOLDER } } } }),
    },
    {
      id: 'vscode',
      client: 'VS Code',
      file: '.vscode/mcp.json (VS Code asks for the key once and keeps it out of the file)',
      json: text({
        inputs: [{ type: 'promptString', id: 'agent-key', description: 'Agent key', password: true }],
        servers: { [name]: { type: 'http', url, headers: { 'X-Agent-Access-Key': '${input:agent-key}' } } },
      }),
    },
  ];
}
