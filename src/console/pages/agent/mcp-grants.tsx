import { Code, Table, Text } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { CopyBlock } from '../../copy-field.js';
import { when } from '../../format.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { Section } from '../../section.js';
import { EmptyState, NoData } from '../../states.js';
import { RevokeButton, TableHead } from '../../table-parts.js';
import { ConfirmDialog, ScrollTable } from '../../ui.js';

// Hosted AI apps (ChatGPT, Claude on the web) cannot send an agent key: they sign a member in and
// ask for approval instead (OAuth). This lists the approvals of the agent's MCP server and revokes them.

const GrantsQuery = graphql(`
  query McpGrants($id: ID!) {
    agent(id: $id) {
      id
      mcpGrants {
        id
        clientId
        clientName
        redirectHost
        grantedBy {
          id
          name
          email
        }
        createdAt
        lastUsedAt
      }
    }
  }
`);

const RevokeGrant = graphql(`
  mutation RevokeMcpGrant($agentId: ID!, $grantId: ID!) {
    revokeMcpGrant(agentId: $agentId, grantId: $grantId)
  }
`);

type Grant = ResultOf<typeof GrantsQuery>['agent']['mcpGrants'][number];

/** The client's name as it gave it, else its id. */
const clientLabel = (g: Grant) => g.clientName ?? g.clientId;

/** The "Connected apps (OAuth)" section of the MCP tab: the connector URL and the approved clients, each revocable. */
export function McpGrants({ agentId, url }: { agentId: string; url: string }) {
  // A revoke invalidates the list by type (also an empty one, which holds no McpGrant to match).
  const context = useMemo(() => ({ additionalTypenames: ['McpGrant'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: GrantsQuery, variables: { id: agentId }, context });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const [revoking, setRevoking] = useState<Grant | null>(null);
  const [, revoke] = useMutation(RevokeGrant);
  const grants = data?.agent.mcpGrants ?? [];
  return (
    <Section id="mcp-oauth-title" title="Connected apps (OAuth)">
      <CopyBlock
        label="Connector URL"
        value={url}
        description="Paste it as a custom connector in ChatGPT or Claude: the app sends you here to sign in and approve it, then calls the agent's tools without a key."
      />
      {!data ? (
        <NoData result={{ fetching, error }} loading="Loading the connected apps…" retry={reload} />
      ) : grants.length === 0 ? (
        <EmptyState title="No connected apps yet">
          Add the connector URL in a hosted AI app. A workspace member signs in, sees the app&apos;s name and where it
          sends them back, and approves it; the app is then listed here until someone revokes it.
        </EmptyState>
      ) : (
        <ScrollTable minWidth={760} label="Connected apps table">
          <Table aria-label="Connected apps">
            <TableHead columns={['App', 'Redirect host', 'Approved by', 'Approved', 'Last used']} actions />
            <Table.Tbody>
              {grants.map((g) => (
                <Table.Tr key={g.id}>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{g.clientName ?? <Code>{g.clientId}</Code>}</Table.Td>
                  <Table.Td>{g.redirectHost ?? '—'}</Table.Td>
                  <Table.Td>{g.grantedBy ? g.grantedBy.name || g.grantedBy.email : '—'}</Table.Td>
                  <Table.Td>{when(g.createdAt, '—')}</Table.Td>
                  <Table.Td>{when(g.lastUsedAt, 'Never')}</Table.Td>
                  <Table.Td>
                    <RevokeButton label={`Revoke ${clientLabel(g)}`} onRevoke={() => setRevoking(g)} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      <ConfirmDialog
        opened={revoking !== null}
        title="Revoke connected app"
        confirmLabel="Revoke access"
        onConfirm={async () => (await revoke({ agentId, grantId: revoking!.id }, context)).error}
        onClose={() => setRevoking(null)}
      >
        {revoking
          ? `Revoke “${clientLabel(revoking)}”? Its tokens stop working at once: its next call is refused, and to connect again someone must approve it anew.`
          : ''}
      </ConfirmDialog>
      <Text size="xs" c="dimmed">
        Desktop and IDE clients keep using agent keys (above); revoking an app here does not touch them. An app also
        stops working when the member token its approver signed in with is revoked, or when the approver can no longer
        see this agent.
      </Text>
    </Section>
  );
}
