import { Radio, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { CodeEditor } from '../../code-editor.js';
import { errorAt, fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { HandlerPicker, ModelOverrideSelect } from '../../handler-picker.js';
import { FormActions } from '../../ui.js';

// Adding or editing one of the agent's channels: an email address or SMS number, its handler (in the
// code editor the webhook form uses), the model override of a prompt, the allowed senders and
// whether the agent answers by itself. The service validates; its errors go beside their fields.

const AddChannelMutation = graphql(`
  mutation AddChannel($agentId: ID!, $input: ChannelInput!) {
    addChannel(agentId: $agentId, input: $input) {
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
`);

const UpdateChannelMutation = graphql(`
  mutation UpdateChannel($id: ID!, $input: UpdateChannelInput!) {
    updateChannel(id: $id, input: $input) {
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
`);

export type ChannelOut = ResultOf<typeof AddChannelMutation>['addChannel'];
type Kind = ChannelOut['kind'];

/** A script's answer to a received message: its text goes back to the sender (an email's subject too). */
const DEFAULT_SCRIPT =
  '// `input` is {from, to, text, messageId, threadId}; the reply goes back to the sender.\nreturn { reply: `Thanks, we got: ${input.text}` };\n';

/** One sender per line (or separated by commas), blanks dropped. */
function sendersOf(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

interface FormProps {
  agentId: string;
  channel: ChannelOut | null;
  models: readonly { name: string }[];
  onDone: () => void;
  onCancel: () => void;
}

/** The form of a channel; its kind is chosen when it is added and stays. */
export function ChannelForm({ agentId, channel, models, onDone, onCancel }: FormProps) {
  const [kind, setKind] = useState<Kind>(channel?.kind ?? 'EMAIL');
  const [address, setAddress] = useState(channel?.address ?? '');
  const [handlerKind, setHandlerKind] = useState<'PROMPT' | 'SCRIPT'>(channel?.handler.kind ?? 'PROMPT');
  const [prompt, setPrompt] = useState(channel?.handler.prompt ?? '');
  const [script, setScript] = useState(channel?.handler.script ?? DEFAULT_SCRIPT);
  const [model, setModel] = useState<string | null>(channel?.modelOverride ?? null);
  const [senders, setSenders] = useState((channel?.allowedSenders ?? []).join('\n'));
  const [autoReply, setAutoReply] = useState(channel?.autoReply ?? true);
  const [added, add] = useMutation(AddChannelMutation);
  const [updated, update] = useMutation(UpdateChannelMutation);
  const error = channel ? updated.error : added.error;
  const { fields, other } = fieldErrors(error);
  const handlerError =
    errorAt(error, `input.handler.${handlerKind === 'SCRIPT' ? 'script' : 'prompt'}`) ??
    errorAt(error, 'input.handler') ??
    (fields.handler ? { message: fields.handler } : null);
  const shown = ['address', 'handler', 'modelOverride', 'allowedSenders'];
  const rest =
    [
      ...Object.entries(fields)
        .filter(([k]) => !shown.includes(k))
        .map(([k, v]) => `${k}: ${v}`),
      other,
    ]
      .filter(Boolean)
      .join(' ') || null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const common = {
      address,
      handler: handlerKind === 'SCRIPT' ? { script } : { prompt },
      // A script never calls a model: its override would mean nothing.
      modelOverride: handlerKind === 'PROMPT' ? model : null,
      allowedSenders: sendersOf(senders),
      autoReply,
    };
    const result = channel
      ? await update({ id: channel.id, input: common })
      : await add({ agentId, input: { kind, ...common } });
    if (!result.error) onDone();
  };

  const email = kind === 'EMAIL';
  return (
    <form onSubmit={submit} noValidate aria-label="Channel">
      <Stack>
        <Radio.Group
          label="Kind"
          value={kind}
          onChange={(v) => setKind(v as Kind)}
          description={channel ? 'The kind of a channel stays as it was added' : undefined}
        >
          <Stack gap={6} mt="xs">
            <Radio value="EMAIL" label="Email address" disabled={!!channel} />
            <Radio value="SMS" label="SMS number" disabled={!!channel} />
          </Stack>
        </Radio.Group>
        <TextInput
          label={email ? 'Email address' : 'Phone number'}
          description={
            email ? 'Mail to it reaches the agent, e.g. support@mail.example.com' : 'In E.164 form, e.g. +14155550100'
          }
          required
          data-autofocus
          value={address}
          onChange={(e) => setAddress(e.currentTarget.value)}
          error={fields.address}
        />
        <HandlerPicker value={handlerKind} onChange={setHandlerKind} />
        {handlerKind === 'PROMPT' ? (
          <>
            <CodeEditor
              key="prompt"
              label="Prompt"
              description="How the agent answers a message (added to its instructions)"
              language="text"
              value={prompt}
              onChange={setPrompt}
              error={handlerError}
              minHeight={120}
            />
            <ModelOverrideSelect
              models={models}
              value={model ?? ''}
              onChange={(name) => setModel(name || null)}
              error={fields.modelOverride}
            />
          </>
        ) : (
          <CodeEditor
            key="script"
            label="Script"
            description="Runs in the sandbox for each received message"
            language="javascript"
            value={script}
            onChange={setScript}
            error={handlerError}
            minHeight={180}
          />
        )}
        <Textarea
          label="Allowed senders"
          description={
            email
              ? 'One per line: addresses, or @example.com for a whole domain. Empty: anyone. Others are stored, not answered'
              : 'One number per line. Empty: anyone. Others are stored, not answered'
          }
          autosize
          minRows={2}
          value={senders}
          onChange={(e) => setSenders(e.currentTarget.value)}
          error={fields.allowedSenders}
        />
        <Switch
          label="Answer automatically"
          description="Off: received messages are stored and not answered"
          checked={autoReply}
          onChange={(e) => setAutoReply(e.currentTarget.checked)}
        />
        <FormActions
          error={rest}
          submit={channel ? 'Save channel' : 'Add channel'}
          loading={added.fetching || updated.fetching}
          onCancel={onCancel}
          light
        />
      </Stack>
    </form>
  );
}
