import { Group, NumberInput, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { CodeEditor } from '../../code-editor.js';
import { errorAt, fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { HandlerPicker, ModelOverrideSelect } from '../../handler-picker.js';
import { FormActions } from '../../ui.js';

const AddWebhookMutation = graphql(`
  mutation AddWebhook($agentId: ID!, $input: WebhookInput!) {
    addWebhook(agentId: $agentId, input: $input) {
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
`);

const UpdateWebhookMutation = graphql(`
  mutation UpdateWebhook($id: ID!, $input: UpdateWebhookInput!) {
    updateWebhook(id: $id, input: $input) {
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
`);

type Webhook = ResultOf<typeof AddWebhookMutation>['addWebhook'];
type Scheme = NonNullable<Webhook['signature']>['scheme'];

const SCHEMES: { value: Scheme; label: string }[] = [
  { value: 'HMAC_SHA256', label: 'HMAC-SHA256 (X-Signature-256: sha256=<hex>)' },
  { value: 'GITHUB', label: 'GitHub (X-Hub-Signature-256)' },
  { value: 'STRIPE', label: 'Stripe (Stripe-Signature)' },
  { value: 'SLACK', label: 'Slack (X-Slack-Signature)' },
  { value: 'STANDARD_WEBHOOKS', label: 'Standard Webhooks (webhook-signature)' },
];

/** The URL a sender posts to. */
export function webhookUrl(agentId: string, integration: string): string {
  return `${window.location.origin}/agents/${encodeURIComponent(agentId)}/webhook/${encodeURIComponent(integration)}`;
}

interface FormProps {
  agentId: string;
  webhook: Webhook | null;
  secrets: readonly { name: string; kind: string }[];
  models: readonly { name: string }[];
  onDone: () => void;
  onCancel: () => void;
}

const DEFAULT_SCRIPT =
  '// `input` is the parsed body; `request` has method, headers, query, rawBody and delivery.\nreturn { received: input };\n';

/** Adds an integration, or edits one: its name, signature check, handler and body limit. */
export function WebhookForm({ agentId, webhook, secrets, models, onDone, onCancel }: FormProps) {
  const [integration, setIntegration] = useState(webhook?.integration ?? '');
  const [scheme, setScheme] = useState<string>(webhook?.signature?.scheme ?? 'HMAC_SHA256');
  const signingSecrets = secrets.filter((s) => s.kind === 'WEBHOOK_SIGNING_SECRET');
  const [secretName, setSecretName] = useState<string | null>(
    webhook ? (webhook.signature?.secretName ?? null) : (signingSecrets[0]?.name ?? null),
  );
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
  const handlerError =
    errorAt(error, 'handler.script') ??
    errorAt(error, 'input.handler.script') ??
    errorAt(error, 'input.handler.prompt') ??
    (fields.handler ? { message: fields.handler } : null);

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
        <Switch
          label="Check the sender's signature"
          checked={signed}
          onChange={(e) => setSigned(e.currentTarget.checked)}
        />
        {signed ? (
          <Group grow align="flex-start" wrap="wrap">
            <Select
              label="Signature scheme"
              data={SCHEMES}
              value={scheme}
              onChange={(v) => setScheme(v ?? 'HMAC_SHA256')}
              allowDeselect={false}
              miw={220}
            />
            <Select
              label="Signing secret"
              description={
                signingSecrets.length
                  ? 'A workspace secret of the kind "Webhook signing secret"'
                  : 'No signing secret yet: an admin adds one under Workspace → Secrets'
              }
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
        <HandlerPicker value={kind} onChange={setKind} />
        {kind === 'SCRIPT' ? (
          <CodeEditor
            key="script"
            label="Script"
            description="JavaScript run in the sandbox for each delivery; what it returns is the run's output"
            language="javascript"
            value={script}
            onChange={setScript}
            error={handlerError}
            minHeight={200}
          />
        ) : (
          <>
            <CodeEditor
              key="prompt"
              label="Prompt"
              description="The model gets it with the delivery's body"
              language="text"
              value={prompt}
              onChange={setPrompt}
              error={handlerError}
              minHeight={140}
            />
            <ModelOverrideSelect
              models={models}
              value={modelOverride ?? ''}
              onChange={(name) => setModelOverride(name || null)}
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
        <FormActions
          error={other}
          submit={webhook ? 'Save integration' : 'Add integration'}
          loading={add.fetching || update.fetching}
          onCancel={onCancel}
          light
        />
      </Stack>
    </form>
  );
}
