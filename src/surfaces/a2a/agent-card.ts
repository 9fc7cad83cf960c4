import type { AgentCard } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { Agent } from '../../domain/core/agent.entities.js';
import type { A2aSkill } from '../../domain/surfaces/a2a.service.js';

/** The protocol version this server speaks. */
export const A2A_VERSION = '1.0';

/** An agent's A2A URLs: JSON-RPC, and the HTTP+JSON binding's base. */
export function a2aUrls(baseUrl: string, agentId: string): { jsonRpc: string; rest: string } {
  const base = `${baseUrl.replace(/\/$/, '')}/agents/${encodeURIComponent(agentId)}/a2a`;
  return { jsonRpc: base, rest: `${base}/rest` };
}

const MODES = ['text/plain', 'application/json'];

/**
 * The agent card: the agent's name and description, its two interfaces, the key as a bearer token
 * or in `X-Agent-Access-Key`, streaming (no push notifications), and a skill per MCP tool plus the
 * chat of an agent with instructions.
 */
export function agentCard(agent: Agent, skills: A2aSkill[], baseUrl: string): AgentCard {
  const urls = a2aUrls(baseUrl, agent.id);
  return {
    name: agent.name,
    description: agent.description || `The agent ${agent.name}`,
    // The JSON-RPC URL also answers 0.3 (requests without A2A-Version): the card says so.
    supportedInterfaces: duplicateInterfacesForLegacy(
      [
        { url: urls.jsonRpc, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_VERSION },
        { url: urls.rest, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_VERSION },
      ],
      ['JSONRPC'],
    ),
    provider: { organization: 'Agent Exposure Service', url: baseUrl },
    version: agent.updatedAt.toISOString(),
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            description: "The agent's key (ak_), or a workspace key when the agent allows them",
            scheme: 'Bearer',
            bearerFormat: '',
          },
        },
      },
      agentKey: {
        scheme: {
          $case: 'apiKeySecurityScheme',
          value: { description: "The agent's key in a header", location: 'header', name: 'X-Agent-Access-Key' },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { agentKey: { list: [] } } }],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description || s.name,
      tags: [],
      examples: [],
      inputModes: MODES,
      outputModes: s.structured ? MODES : ['text/plain'],
      securityRequirements: [],
    })),
    signatures: [],
  };
}
