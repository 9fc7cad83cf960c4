import { Badge, Button, Card, Code, CopyButton, Group, NumberInput, SegmentedControl, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { CodeEditor } from '../../code-editor.js';
import { errorAt, fieldErrors, messageOf } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import { Deliveries } from '../../webhook-deliveries.js';
import type { AgentTabProps } from './tab-props.js';
import { Callout, ErrorNotice, FormModal, ConfirmDialog, FormActions } from '../../ui.js';

const WebhooksQuery = graphql(`
  query AgentWebhooks($id: ID!) {
    agent(id: $id) {
      id
      surfaces { surface enabled activityLogging }
      webhooks { id integration signature { scheme secretName } handler { kind prompt script } modelOverride maxBodyBytes warning createdAt updatedAt }
    }
    secrets { id name kind }
    models { id name isDefault }
  }
`);

const AddWebhookMutation = graphql(`
  mutation AddWebhook($agentId: ID!, $input: WebhookInput!) {
    addWebhook(agentId: $agentId, input: $input) { id integration signature { scheme secretName } handler { kind prompt script } modelOverride maxBodyBytes warning createdAt updatedAt }
  }
`);

const UpdateWebhookMutation = graphql(`
  mutation UpdateWebhook($id: ID!, $input: UpdateWebhookInput!) {
    updateWebhook(id: $id, input: $input) { id integration signature { scheme secretName } handler { kind prompt script } modelOverride maxBodyBytes warning createdAt updatedAt }
  }
`);

const RemoveWebhookMutation = graphql(`
  mutation RemoveWebhook($id: ID!) {
    removeWebhook(id: $id)
  }
`);

const SetWebhooksSurfaceMutation = graphql(`
  mutation SetWebhooksSurface($agentId: ID!, $enabled: Boolean, $activityLogging: Boolean) {
    setSurface(agentId: $agentId, surface: WEBHOOKS, enabled: $enabled, activityLogging: $activityLogging) { id surfaces { surface enabled activityLogging } }
  }
`);

type Data = ResultOf<typeof WebhooksQuery>;
type Webhook = Data['agent']['webhooks'][number];
type Scheme = NonNullable<Webhook['signature']>['scheme'];

const SCHEMES: { value: Scheme; label: string }[] = [
  { value: 'HMAC_SHA256', label: 'HMAC-SHA256 (X-Signature-256: sha256=<hex>)' },
  { value: 'GITHUB', label: 'GitHub (X-Hub-Signature-256)' },
  { value: 'STRIPE', label: 'Stripe (Stripe-Signature)' },
  { value: 'SLACK', label: 'Slack (X-Slack-Signature)' },
  { value: 'STANDARD_WEBHOOKS', label: 'Standard Webhooks (webhook-signature)' },
];
const NO_SIGNATURE = 'NONE';

/** The URL a sender posts to. */
export function webhookUrl(agentId: string, integration: string): string {
  return `${window.location.origin}/agents/${encodeURIComponent(agentId)}/webhook/${encodeURIComponent(integration)}`;
}

/** The agent's Webhooks tab: the integrations (URL, signature, handler) and their deliveries. */
export default function WebhooksTab({ agentId }: AgentTabProps) {
  const context = useMemo(() => ({ additionalTypenames: ['Webhook'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: WebhooksQuery, variables: { id: agentId }, context });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [removing, setRemoving] = useState<Webhook | null>(null);
  const [, removeWebhook] = useMutation(RemoveWebhookMutation);
  const [surface, setSurface] = useMutation(SetWebhooksSurfaceMutation);

  if (fetching && !data) return <LoadingState label="Loading the webhooks…" />;
  if (!data) return <ErrorState error={error} retry={reload} />;
  const setting = data.agent.surfaces.find((s) => s.surface === 'WEBHOOKS');
  const webhooks = data.agent.webhooks;


  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>Integrations</Title>
        <Button onClick={() => setEditing('new')}>Add integration</Button>
      </Group>
      <Group gap="xl">
        <Switch
          label="Webhooks surface on"
          checked={setting?.enabled ?? false}
          disabled={surface.fetching}
          onChange={(e) => void setSurface({ agentId, enabled: e.currentTarget.checked })}
        />
        <Switch
          label="Activity logging"
          description="Off: deliveries run without a run entry, and their output is not shown"
          checked={setting?.activityLogging ?? false}
          disabled={surface.fetching}
          onChange={(e) => void setSurface({ agentId, activityLogging: e.currentTarget.checked })}
        />
      </Group>
      <ErrorNotice light>{surface.error ? messageOf(surface.error) : null}</ErrorNotice>
      {webhooks.length === 0 ? (
        <EmptyState title="No integrations yet">Add one to get a URL that a sender (GitHub, Stripe, Slack…) posts its events to; each delivery runs the handler.</EmptyState>
      ) : (
        <Stack gap="sm">
          {webhooks.map((w) => (
            <IntegrationCard key={w.id} agentId={agentId} webhook={w} onEdit={() => setEditing(w)} onRemove={() => setRemoving(w)} />
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

function IntegrationCard({ agentId, webhook: w, onEdit, onRemove }: { agentId: string; webhook: Webhook; onEdit: () => void; onRemove: () => void }) {
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
        {w.warning ? (
          <Callout color="red" title="Warning">
            {w.warning}
          </Callout>
        ) : null}
      </Stack>
    </Card>
  );
}

interface FormProps {
  agentId: string;
  webhook: Webhook | null;
  secrets: Data['secrets'];
  models: Data['models'];
  onDone: () => void;
  onCancel: () => void;
}

const DEFAULT_SCRIPT = '// `input` is the parsed body; `request` has method, headers, query, rawBody and delivery.\nreturn { received: input };\n';

function WebhookForm({ agentId, webhook, secrets, models, onDone, onCancel }: FormProps) {
  const [integration, setIntegration] = useState(webhook?.integration ?? '');
  const [scheme, setScheme] = useState<string>(webhook?.signature?.scheme ?? 'HMAC_SHA256');
  const signingSecrets = secrets.filter((s) => s.kind === 'WEBHOOK_SIGNING_SECRET');
  const [secretName, setSecretName] = useState<string | null>(webhook ? (webhook.signature?.secretName ?? null) : (signingSecrets[0]?.name ?? null));
  const [signed, setSigned] = useState(webhook ? webhook.signature !== null : signingSecrets.length > 0);
  const [kind, setKind] = useState<'SCRIPT' | 'PROMPT'>(webhook?.handler.kind ?? 'SCRIPT');
  const [script, setScript] = useState(webhook?.handler.script ?? DEFAULT_SCRIPT);
  const [prompt, setPrompt] = useState(webhook?.handler.prompt ?? '');
  const [modelOverride, setModelOverride] = useState<string | null>(webhook?.modelOverride ?? null);
  const [maxBodyBytes, setMaxBodyBytes] = useState<number | string>(webhook?.maxBodyBytes ?? '');
  const [add, addWebhook] = useMutation(AddWebhookMutation);
  const [update, updateWebhook] = useMutation(UpdateWebhookMutation);
  const error = webhook ? update.error : add.error;
  const { fields, other } = fieldErrors(error);
  // The handler's error (a script's syntax error comes with its line and column).
  const handlerError = errorAt(error, 'handler.script') ?? errorAt(error, 'input.handler.script') ?? errorAt(error, 'input.handler.prompt') ?? (fields.handler ? { message: fields.handler } : null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const input = {
      integration,
      handler: kind === 'SCRIPT' ? { script } : { prompt },
      modelOverride: kind === 'PROMPT' ? modelOverride : null,
      signature: signed ? { scheme: scheme as Scheme, secretName: secretName ?? '' } : null,
      maxBodyBytes: typeof maxBodyBytes === 'number' ? maxBodyBytes : null,
    };
    const result = webhook ? await updateWebhook({ id: webhook.id, input }) : await addWebhook({ agentId, input });
    if (!result.error) onDone();
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Integration">
      <Stack>
        <TextInput
          label="Integration name"
          description={`Part of the URL: ${webhookUrl(agentId, integration || '<name>')}`}
          required
          data-autofocus
          value={integration}
          onChange={(e) => setIntegration(e.currentTarget.value)}
          error={fields.integration}
        />
        <Switch label="Check the sender's signature" checked={signed} onChange={(e) => setSigned(e.currentTarget.checked)} />
        {signed ? (
          <Group grow align="flex-start" wrap="wrap">
            <Select label="Signature scheme" data={SCHEMES} value={scheme} onChange={(v) => setScheme(v ?? 'HMAC_SHA256')} allowDeselect={false} miw={220} />
            <Select
              label="Signing secret"
              description={signingSecrets.length ? 'A workspace secret of kind WEBHOOK_SIGNING_SECRET' : 'No signing secret yet: an admin adds one under Workspace → Secrets'}
              placeholder="Pick a secret"
              data={signingSecrets.map((s) => s.name)}
              value={secretName}
              onChange={setSecretName}
              error={fields.signature}
              miw={220}
            />
          </Group>
        ) : (
          <Text size="sm" c="red.9">
            Without a signature check the integration runs for anyone who knows its URL.
          </Text>
        )}
        <SegmentedControl
          aria-label="Handler kind"
          value={kind}
          onChange={(v) => setKind(v as 'SCRIPT' | 'PROMPT')}
          data={[
            { value: 'SCRIPT', label: 'Script' },
            { value: 'PROMPT', label: 'Prompt' },
          ]}
        />
        {kind === 'SCRIPT' ? (
          <CodeEditor key="script" label="Handler script" description="JavaScript run in the sandbox for each delivery; what it returns is the run's output" language="javascript" value={script} onChange={setScript} error={handlerError} minHeight={200} />
        ) : (
          <>
            <CodeEditor key="prompt" label="Handler prompt" description="The model gets it with the delivery's body" language="text" value={prompt} onChange={setPrompt} error={handlerError} minHeight={140} />
            <Select
              label="Model override"
              description="Empty: the agent's default model"
              placeholder="Agent default"
              clearable
              data={models.map((m) => m.name)}
              value={modelOverride}
              onChange={setModelOverride}
              error={fields.modelOverride}
            />
          </>
        )}
        <NumberInput
          label="Largest body (bytes)"
          description="Empty: 64 KiB without a signature check, 1 MiB with one"
          min={1}
          max={1048576}
          allowDecimal={false}
          value={maxBodyBytes}
          onChange={setMaxBodyBytes}
          error={fields.maxBodyBytes}
        />
        <FormActions error={other} submit={webhook ? 'Save integration' : 'Add integration'} loading={add.fetching || update.fetching} onCancel={onCancel} light />
      </Stack>
    </form>
  );
}
