import { Button, Group, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { CopyBlock, CopyTabs } from '../../copy-field.js';
import { fieldErrors } from '../../errors.js';
import { graphql } from '../../graphql.js';
import { clientConfigs, serverName } from '../../../../packages/cli/src/shared/mcp-configs.js';
import { Section } from '../../section.js';
import { Callout, ErrorNotice } from '../../ui.js';

// "Connect a client" on the MCP tab: the URL and each client's configuration from the module the
// CLI and the README share (packages/cli/src/shared/mcp-configs.js), with a placeholder for the key
// — or, after "Create a key and fill it in", with a new agent key in place, shown on this page only.

const CreateMcpKey = graphql(`
  mutation CreateMcpClientKey($agentId: ID!, $name: String!) {
    createAgentApiKey(agentId: $agentId, name: $name) {
      key
      apiKey {
        id
        name
        prefix
        last4
      }
    }
  }
`);

interface Made {
  key: string;
  name: string;
  prefix: string;
  last4: string;
}

/** The MCP server's URL and ready-to-paste client configurations, with or without a new key in them. */
export function McpConnect({ agentId, agentName, url }: { agentId: string; agentName: string; url: string }) {
  const [made, setMade] = useState<Made | null>(null);
  const [name, setName] = useState('MCP client');
  const [{ fetching, error }, create] = useMutation(CreateMcpKey);
  const { fields, other } = fieldErrors(error);
  const configs = clientConfigs(url, serverName(agentName), made?.key);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // ApiKey is named so that the API Keys tab's list refetches.
    const r = await create({ agentId, name }, { additionalTypenames: ['ApiKey'] });
    if (r.data) setMade({ key: r.data.createAgentApiKey.key, ...r.data.createAgentApiKey.apiKey });
  };
  return (
    <Section id="mcp-connect-title" title="Connect a client">
      <CopyBlock
        label="MCP server URL"
        value={url}
        description="Streamable HTTP; the client sends an agent key in the X-Agent-Access-Key header (or as a bearer token)."
      />
      {made ? (
        <Callout color="red" title="The configurations below hold a new key: copy one now" role="status">
          They hold the key “{made.name}” ({made.prefix}…{made.last4}), shown on this page only: it is gone when you
          leave. It works until you revoke it on the API Keys tab.{' '}
          <Button size="compact-xs" variant="subtle" onClick={() => setMade(null)}>
            Show the placeholder again
          </Button>
        </Callout>
      ) : (
        <form onSubmit={submit} noValidate aria-label="Create a key for an MCP client">
          <Text size="sm" mb="xs">
            Replace the placeholder with an agent key from the API Keys tab, or create one here and have it filled in.
            Keys belong in the client&apos;s configuration, never in a shared file.
          </Text>
          <Group align="flex-end" gap="xs">
            <TextInput
              label="Key name"
              description="What the key is for, listed on the API Keys tab"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={fields.name}
            />
            <Button type="submit" variant="light" loading={fetching}>
              Create a key and fill it in
            </Button>
          </Group>
          <ErrorNotice light>{other}</ErrorNotice>
        </form>
      )}
      <CopyTabs
        label="MCP clients"
        kind="configuration"
        tabs={configs.map((c) => ({
          id: c.id,
          title: c.client,
          description: c.file,
          value: JSON.stringify(c.config, null, 2),
        }))}
      />
    </Section>
  );
}
