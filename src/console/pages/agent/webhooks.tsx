import { Badge, Button, Card, Code, CopyButton, Group, Stack, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql, type ResultOf } from '../../graphql.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import { Deliveries } from '../../webhook-deliveries.js';
import type { AgentTabProps } from './tab-props.js';
import { webhookUrl, WebhookForm } from './webhook-form.js';
import { Callout, FormModal, ConfirmDialog } from '../../ui.js';
import { SurfaceSwitches } from '../../surface-switches.js';

const WebhooksQuery = graphql(`
  query AgentWebhooks($id: ID!) {
    agent(id: $id) {
      id
      webhooks {
        id
        integration
        signature {
          scheme
          secretName
        }
        handler {
          kind
          prompt
          script
        }
        modelOverride
        maxBodyBytes
        createdAt
        updatedAt
      }
    }
    secrets {
      id
      name
      kind
    }
    models {
      id
      name
      isDefault
    }
  }
`);

const RemoveWebhookMutation = graphql(`
  mutation RemoveWebhook($id: ID!) {
    removeWebhook(id: $id)
  }
`);

type Data = ResultOf<typeof WebhooksQuery>;
type Webhook = Data['agent']['webhooks'][number];
/** The agent's Webhooks tab: the integrations (URL, signature, handler) and their deliveries. */
export default function WebhooksTab({ agentId }: AgentTabProps) {
  const context = useMemo(() => ({ additionalTypenames: ['Webhook'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: WebhooksQuery, variables: { id: agentId }, context });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [removing, setRemoving] = useState<Webhook | null>(null);
  const [, removeWebhook] = useMutation(RemoveWebhookMutation);

  if (fetching && !data) return <LoadingState label="Loading the webhooks…" />;
  if (!data) return <ErrorState error={error} retry={reload} />;
  const webhooks = data.agent.webhooks;

  return (
    <Stack>
      <SurfaceSwitches agentId={agentId} surface="WEBHOOKS" label="Webhooks" />
      <Group justify="space-between">
        <Title order={3}>Integrations</Title>
        {webhooks.length ? <Button onClick={() => setEditing('new')}>Add integration</Button> : null}
      </Group>
      {webhooks.length === 0 ? (
        <EmptyState
          title="No integrations yet"
          action={<Button onClick={() => setEditing('new')}>Add integration</Button>}
        >
          Add one to get a URL that a sender (GitHub, Stripe, Slack…) posts its events to; each delivery runs the
          handler.
        </EmptyState>
      ) : (
        <Stack gap="sm">
          {webhooks.map((w) => (
            <IntegrationCard
              key={w.id}
              agentId={agentId}
              webhook={w}
              onEdit={() => setEditing(w)}
              onRemove={() => setRemoving(w)}
            />
          ))}
        </Stack>
      )}
      <Title order={3} mt="md">
        Deliveries
      </Title>
      <Deliveries agentId={agentId} integrations={webhooks.map((w) => w.integration)} />
      <FormModal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? 'Add integration' : `Edit integration ${editing?.integration ?? ''}`}
        size="xl"
      >
        {editing ? (
          <WebhookForm
            key={editing === 'new' ? 'new' : editing.id}
            agentId={agentId}
            webhook={editing === 'new' ? null : editing}
            secrets={data.secrets}
            models={data.models}
            onDone={() => {
              setEditing(null);
              reload();
            }}
            onCancel={() => setEditing(null)}
          />
        ) : null}
      </FormModal>
      <ConfirmDialog
        opened={removing !== null}
        title="Remove integration"
        confirmLabel="Remove integration"
        onConfirm={async () => {
          const result = await removeWebhook({ id: removing!.id });
          if (!result.error) reload();
          return result.error;
        }}
        onClose={() => setRemoving(null)}
      >
        {removing ? `Remove “${removing.integration}”? Its URL stops accepting deliveries (404).` : ''}
      </ConfirmDialog>
    </Stack>
  );
}

function IntegrationCard({
  agentId,
  webhook: w,
  onEdit,
  onRemove,
}: {
  agentId: string;
  webhook: Webhook;
  onEdit: () => void;
  onRemove: () => void;
}) {
  const url = webhookUrl(agentId, w.integration);
  return (
    <Card withBorder padding="md" aria-label={`Integration ${w.integration}`} component="section">
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Group gap="xs">
            <Text fw={600}>{w.integration}</Text>
            <Badge variant="outline" color="gray.8">
              {w.handler.kind === 'SCRIPT' ? 'Script' : 'Prompt'}
            </Badge>
            {w.signature ? (
              <Badge variant="outline" color="teal.9">
                Signed: {w.signature.scheme} with {w.signature.secretName}
              </Badge>
            ) : (
              <Badge variant="outline" color="red.9">
                No signature check
              </Badge>
            )}
          </Group>
          <Group gap="xs">
            <Button size="xs" variant="default" onClick={onEdit} aria-label={`Edit ${w.integration}`}>
              Edit
            </Button>
            <Button size="xs" variant="light" color="red" onClick={onRemove} aria-label={`Remove ${w.integration}`}>
              Remove
            </Button>
          </Group>
        </Group>
        <Group gap="xs" wrap="nowrap" align="center">
          <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
            URL for the sender
          </Text>
          <Code style={{ wordBreak: 'break-all' }} data-testid="webhook-url">
            {url}
          </Code>
          <CopyButton value={url}>
            {({ copied, copy }) => (
              <Button size="compact-xs" variant="subtle" onClick={copy} aria-label={`Copy the URL of ${w.integration}`}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
        {w.modelOverride ? <Text size="sm">Model: {w.modelOverride}</Text> : null}
        {/* The service's own warning names API operations; a person gets the console's path instead. */}
        {w.signature ? null : (
          <Callout color="red" title="Anyone who knows this URL can run this integration">
            It checks no signature, so any delivery to its URL runs the handler. Add a signing secret in Workspace →
            Secrets, then Edit → Check the sender&apos;s signature.
          </Callout>
        )}
      </Stack>
    </Card>
  );
}
