import { graphql, type ResultOf } from '../../graphql.js';

// The Overview tab's GraphQL operations and the choices it offers (capabilities, redaction presets).

/** Saves the agent's own fields and its team. */
export const UpdateAgentMutation = graphql(`
  mutation UpdateAgent($id: ID!, $input: UpdateAgentInput!) {
    updateAgent(id: $id, input: $input) {
      id
      name
      description
      instructions
      defaultModel
      visibility
      teamId
      updatedAt
    }
  }
`);

// The agent page's query carries what every tab needs; the team, capabilities and guardrails are
// asked here, with the workspace's teams to choose from.
export const OverviewExtrasQuery = graphql(`
  query AgentOverviewExtras($id: ID!) {
    agent(id: $id) {
      id
      teamId
      capabilities {
        endpointManagement
        documents
        messaging
      }
      guardrails {
        blockedInputPatterns
        redactOutputPatterns
        redactPresets
        maxInputChars
        maxOutputTokens
        maxToolSteps
        maxCreditsPerRun
      }
    }
    workspace {
      id
      teams {
        id
        name
      }
    }
  }
`);

export const SetCapabilitiesMutation = graphql(`
  mutation SetAgentCapabilities($agentId: ID!, $input: CapabilitiesInput!) {
    setCapabilities(agentId: $agentId, input: $input) {
      id
      capabilities {
        endpointManagement
        documents
        messaging
      }
    }
  }
`);

export type Capabilities = ResultOf<typeof SetCapabilitiesMutation>['setCapabilities']['capabilities'];

/** The capability switches, in the order shown. */
export const CAPABILITIES: { key: keyof Capabilities; label: string; description: string }[] = [
  {
    key: 'endpointManagement',
    label: 'Endpoint management',
    description: "The agent may list, add, change and remove its own surfaces' entries and settings",
  },
  { key: 'documents', label: 'Documents', description: 'The agent may read and write the records of its documents' },
  {
    key: 'messaging',
    label: 'Messaging',
    description:
      "The agent may send email and text messages from its channels: only to a channel's allowed senders, or into the thread it is answering",
  },
];

export const SetGuardrailsMutation = graphql(`
  mutation SetAgentGuardrails($agentId: ID!, $input: GuardrailsInput!) {
    setGuardrails(agentId: $agentId, input: $input) {
      id
      guardrails {
        blockedInputPatterns
        redactOutputPatterns
        redactPresets
        maxInputChars
        maxOutputTokens
        maxToolSteps
        maxCreditsPerRun
      }
    }
  }
`);

export type Extras = ResultOf<typeof OverviewExtrasQuery>;
export type Preset = Extras['agent']['guardrails']['redactPresets'][number];

/** The redaction presets, in the order shown. */
export const PRESETS: { value: Preset; label: string }[] = [
  { value: 'email', label: 'Email addresses' },
  { value: 'phone', label: 'Phone numbers' },
  { value: 'creditCard', label: 'Credit card numbers' },
];
