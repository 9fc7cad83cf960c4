import { Alert, Badge, Button, Group, MultiSelect, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { CopyBlock } from '../../copy-field.js';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { useIsAdmin } from '../../viewer.js';
import { ConfirmDialog, FormActions, FormModal, ListStates } from '../../ui.js';
import { EventDeliveries } from './event-deliveries.js';

const SubscriptionsQuery = graphql(`
  query EventSubscriptions {
    eventSubscriptions {
      id
      url
      kinds
      agentId
      description
      enabled
      failureStreak
      disabledReason
      createdAt
    }
  }
`);

const CreateMutation = graphql(`
  mutation CreateEventSubscription($input: EventSubscriptionInput!) {
    createEventSubscription(input: $input) {
      secret
      subscription {
        id
      }
    }
  }
`);

const UpdateMutation = graphql(`
  mutation UpdateEventSubscription($id: ID!, $input: EventSubscriptionInput!) {
    updateEventSubscription(id: $id, input: $input) {
      id
      enabled
      failureStreak
      disabledReason
    }
  }
`);

const DeleteMutation = graphql(`
  mutation DeleteEventSubscription($id: ID!) {
    deleteEventSubscription(id: $id)
  }
`);

type Subscription = ResultOf<typeof SubscriptionsQuery>['eventSubscriptions'][number];

/** The event kinds, with what each means for people. */
const KINDS = [
  { value: 'run.completed', label: 'run.completed — a run finished' },
  { value: 'run.failed', label: 'run.failed — a run failed' },
  { value: 'limit.reached', label: 'limit.reached — a limit refused a run' },
  { value: 'webhook.delivery.failed', label: 'webhook.delivery.failed — a delivery gave up' },
  { value: 'message.received', label: 'message.received — an email or SMS came in' },
  { value: 'key.created', label: 'key.created — an API key was made' },
  { value: 'key.revoked', label: 'key.revoked — an API key was revoked' },
  { value: 'schedule.fired', label: 'schedule.fired — a schedule started a run' },
  { value: 'approval.requested', label: 'approval.requested — a run waits for approval' },
  { value: 'approval.decided', label: 'approval.decided — an approval was decided' },
];

const CONTEXT = { additionalTypenames: ['EventSubscription', 'EventDelivery'] };

/** Event webhooks: URLs that receive the workspace's events, their delivery log, and a test event. */
export default function EventWebhooksSection() {
  const isAdmin = useIsAdmin();
  const context = useMemo(() => CONTEXT, []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: SubscriptionsQuery, context });
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Subscription | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [, update] = useMutation(UpdateMutation);
  const [, remove] = useMutation(DeleteMutation);
  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm">
          The service posts each event to these URLs, signed with Standard Webhooks. Failed deliveries are tried again;
          a URL that keeps failing is turned off.
        </Text>
        {isAdmin ? <Button onClick={() => setCreating(true)}>Add event webhook</Button> : null}
      </Group>
      {secret ? (
        <Alert title="Signing secret — shown only now" role="status" data-testid="shown-once">
          <Stack gap="xs" align="flex-start">
            <CopyBlock
              label="Signing secret"
              value={secret}
              description="Verify each delivery with it. It is not shown again."
            />
            <Button size="xs" variant="default" onClick={() => setSecret(null)}>
              Done
            </Button>
          </Stack>
        </Alert>
      ) : null}
      <ListStates
        result={{ data, error, fetching }}
        retry={() => refetch({ requestPolicy: 'network-only' })}
        loading="Loading event webhooks…"
        forbidden="Only workspace members may see the event webhooks."
        isEmpty={(d) => d.eventSubscriptions.length === 0}
        empty={{
          title: 'No event webhooks yet',
          text: isAdmin ? 'Add a URL to receive events as they happen.' : 'An admin adds them.',
        }}
      >
        {(data) => (
          <Table.ScrollContainer minWidth={640}>
            <Table striped aria-label="Event webhooks">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">URL</Table.Th>
                  <Table.Th scope="col">Events</Table.Th>
                  <Table.Th scope="col">State</Table.Th>
                  <Table.Th scope="col">Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.eventSubscriptions.map((s) => (
                  <Table.Tr key={s.id}>
                    <Table.Td>
                      <Text ff="monospace" size="sm" style={{ wordBreak: 'break-all' }}>
                        {s.url}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{s.kinds.join(', ')}</Text>
                    </Table.Td>
                    <Table.Td>
                      {s.enabled ? (
                        <Badge color="teal.9">On</Badge>
                      ) : (
                        <Stack gap={2}>
                          <Badge color="red.9">Off</Badge>
                          <Text size="xs">{s.disabledReason}</Text>
                        </Stack>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs">
                        <Button size="xs" variant="light" onClick={() => setOpen(open === s.id ? null : s.id)}>
                          {open === s.id ? 'Hide deliveries' : 'Deliveries'}
                        </Button>
                        {isAdmin ? (
                          <Button
                            size="xs"
                            variant="default"
                            onClick={() => update({ id: s.id, input: { enabled: !s.enabled } }, context)}
                          >
                            {s.enabled ? 'Turn off' : 'Turn on'}
                          </Button>
                        ) : null}
                        {isAdmin ? (
                          <Button size="xs" color="red" variant="light" onClick={() => setDeleting(s)}>
                            Delete
                          </Button>
                        ) : null}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </ListStates>
      {open ? <EventDeliveries subscriptionId={open} canSend={isAdmin} /> : null}
      <FormModal opened={creating} onClose={() => setCreating(false)} title="Add event webhook">
        <CreateForm
          onDone={(s) => {
            setCreating(false);
            if (s) setSecret(s);
          }}
        />
      </FormModal>
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete event webhook"
        confirmLabel="Delete event webhook"
        onClose={() => setDeleting(null)}
        onConfirm={async () => (await remove({ id: deleting!.id }, context)).error}
      >
        {`Delete the event webhook to “${deleting?.url ?? ''}” and its delivery log?`}
      </ConfirmDialog>
    </Stack>
  );
}

function CreateForm({ onDone }: { onDone: (secret: string | null) => void }) {
  const [url, setUrl] = useState('');
  const [kinds, setKinds] = useState<string[]>(['run.completed', 'run.failed']);
  const [{ fetching, error }, create] = useMutation(CreateMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ input: { url, kinds } }, CONTEXT);
    if (!result.error) onDone(result.data?.createEventSubscription.secret ?? null);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="URL"
          description="An http(s) address of yours that answers with a 2xx"
          required
          data-autofocus
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          error={fields.url}
        />
        <MultiSelect label="Events" data={KINDS} value={kinds} onChange={setKinds} error={fields.kinds} />
        <FormActions error={other} submit="Add event webhook" loading={fetching} onCancel={() => onDone(null)} light />
      </Stack>
    </form>
  );
}
