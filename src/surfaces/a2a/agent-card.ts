import { AgentCard } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { Agent } from '../../domain/core/agent.entities.js';
import { CHAT_SKILL, type A2aSkill } from '../../domain/surfaces/a2a.service.js';

/** The protocol version this server speaks. */
export const A2A_VERSION = '1.0';
/** The earlier version the JSON-RPC URL also answers (requests without `A2A-Version`). */
export const A2A_LEGACY_VERSION = '0.3';

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
      // Required in 1.0 and 0.3, and an empty list would be left out of the JSON altogether.
      tags: s.id === CHAT_SKILL ? ['chat'] : s.structured ? ['tool', 'structured'] : ['tool'],
      examples: [],
      inputModes: MODES,
      outputModes: s.structured ? MODES : ['text/plain'],
      securityRequirements: [],
    })),
    signatures: [],
  };
}

/**
 * The card as served: the 1.0 card, plus the top-level fields of a 0.3 card (`url`,
 * `protocolVersion`, `preferredTransport`, `additionalInterfaces`) naming the interfaces that speak
 * 0.3, so a 0.3 client reads it as well (a 1.0 client reads `supportedInterfaces` and ignores them).
 * The lists a 0.3 client requires are there even when empty (the 1.0 JSON leaves empty lists out).
 */
export function agentCardJson(card: AgentCard): Record<string, unknown> {
  const legacy = card.supportedInterfaces.filter((i) => i.protocolVersion === A2A_LEGACY_VERSION);
  const primary = legacy[0];
  const json = AgentCard.toJSON(card) as Record<string, unknown>;
  return {
    ...json,
    skills: json.skills ?? [],
    ...(primary
      ? {
          url: primary.url,
          protocolVersion: A2A_LEGACY_VERSION,
          preferredTransport: primary.protocolBinding,
          additionalInterfaces: legacy.map((i) => ({ url: i.url, transport: i.protocolBinding })),
        }
      : {}),
  };
}
