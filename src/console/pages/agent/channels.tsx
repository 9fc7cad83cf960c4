import { Badge, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../graphql.js';
import { Section } from '../../section.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import { SurfaceSwitches } from '../../surface-switches.js';
import { EditRemoveButtons, TableHead } from '../../table-parts.js';
import { ConfirmDialog, FormModal, ScrollTable } from '../../ui.js';
import { ChannelForm, type ChannelOut } from './channel-form.js';
import { ChannelMessages } from './channel-messages.js';
import type { AgentTabProps } from './tab-props.js';

const ChannelsQuery = graphql(`
  query AgentChannels($id: ID!) {
    agent(id: $id) {
      id
      channels {
        id
        kind
        address
        handler {
          kind
          prompt
          script
        }
        modelOverride
        allowedSenders
        autoReply
      }
    }
    models {
      id
      name
    }
  }
`);

const RemoveChannelMutation = graphql(`
  mutation RemoveChannel($id: ID!) {
    removeChannel(id: $id)
  }
`);

/** The agent's Channels tab: the EMAIL and SMS switches, its addresses and numbers, and its messages. */
export default function ChannelsTab({ agentId }: AgentTabProps) {
  const context = useMemo(() => ({ additionalTypenames: ['Channel'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: ChannelsQuery, variables: { id: agentId }, context });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const [editing, setEditing] = useState<ChannelOut | 'new' | null>(null);
  const [removing, setRemoving] = useState<ChannelOut | null>(null);
  const [, removeChannel] = useMutation(RemoveChannelMutation);

  if (fetching && !data) return <LoadingState label="Loading the channels…" />;
  if (!data) return <ErrorState error={error} retry={reload} />;
  const channels = data.agent.channels;
  const saved = () => {
    setEditing(null);
    reload();
  };
  // The dialog shows the error, or closes when the channel is gone.
  const remove = async () => {
    const { error: failed } = await removeChannel({ id: removing!.id });
    if (!failed) reload();
    return failed;
  };

  return (
    <Stack>
      <SurfaceSwitches agentId={agentId} surface="EMAIL" label="Email" />
      <SurfaceSwitches agentId={agentId} surface="SMS" label="SMS" />
      <Group justify="space-between">
        <Title order={3}>Channels</Title>
        {channels.length ? <Button onClick={() => setEditing('new')}>Add channel</Button> : null}
      </Group>
      {channels.length === 0 ? (
        <EmptyState title="No channels yet" action={<Button onClick={() => setEditing('new')}>Add channel</Button>}>
          Add an email address or an SMS number: messages to it reach the agent, which can answer them.
        </EmptyState>
      ) : (
        <ScrollTable minWidth={760} label="Channels">
          <Table>
            <TableHead columns={['Kind', 'Address', 'Handler', 'Answers', 'Allowed senders']} actions />
            <Table.Tbody>
              {channels.map((c) => (
                <Table.Tr key={c.id} data-channel={c.id}>
                  <Table.Td>{c.kind === 'EMAIL' ? 'Email' : 'SMS'}</Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{c.address}</Table.Td>
                  <Table.Td>
                    <Badge variant="outline" color={c.handler.kind === 'SCRIPT' ? 'indigo.8' : 'teal.9'}>
                      {c.handler.kind === 'SCRIPT' ? 'Script' : 'Prompt'}
                    </Badge>
                    {c.modelOverride ? <Text size="xs">Model: {c.modelOverride}</Text> : null}
                  </Table.Td>
                  <Table.Td>{c.autoReply ? 'Automatically' : 'Never (stored only)'}</Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ wordBreak: 'break-all' }}>
                      {c.allowedSenders.length ? c.allowedSenders.join(', ') : 'Anyone'}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <EditRemoveButtons name={c.address} onEdit={() => setEditing(c)} onRemove={() => setRemoving(c)} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      <Section id="channel-messages" title="Messages">
        <ChannelMessages agentId={agentId} />
      </Section>
      <FormModal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? 'Add channel' : `Edit channel ${editing?.address ?? ''}`}
        size="xl"
      >
        {editing ? (
          <ChannelForm
            key={editing === 'new' ? 'new' : editing.id}
            agentId={agentId}
            channel={editing === 'new' ? null : editing}
            models={data.models}
            onDone={saved}
            onCancel={() => setEditing(null)}
          />
        ) : null}
      </FormModal>
      <ConfirmDialog
        opened={removing !== null}
        title="Remove channel"
        confirmLabel="Remove channel"
        onConfirm={remove}
        onClose={() => setRemoving(null)}
      >
        {removing
          ? `Remove “${removing.address}”? Messages to it are no longer received; the messages already stored stay.`
          : ''}
      </ConfirmDialog>
    </Stack>
  );
}
