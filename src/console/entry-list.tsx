import { Badge, Button, Group, Paper, Stack, Title } from '@mantine/core';
import type { CombinedError } from '@urql/core';
import { useState, type FormEvent, type ReactNode } from 'react';
import type { EditorError } from './code-editor.js';
import {
  draftOf,
  handlerInput,
  HandlerFields,
  parseSchemas,
  type HandlerDraft,
  type HandlerFieldsProps,
  type HandlerOut,
} from './entry-editor.js';
import { fieldErrors } from './errors.js';
import { EmptyState } from './states.js';
import { FormActions } from './ui.js';

// What the HTTP API's endpoints and the MCP server's tools share around the handler editor: the
// section with its Add button and empty state, the handler's badge, the form's frame, and the
// form's submit (schemas parsed locally first, field errors beside their fields, the rest below).

/** An entries section: its title and Add button, what it says when empty, its table and its form. */
export function EntriesSection(props: {
  id: string;
  title: string;
  add: string;
  adding: boolean;
  onAdd: () => void;
  count: number;
  empty: { title: string; text: ReactNode };
  intro?: ReactNode;
  table: ReactNode;
  form: ReactNode;
}) {
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={props.id}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3} size="h4" id={props.id}>
            {props.title}
          </Title>
          <Button onClick={props.onAdd} disabled={props.adding}>
            {props.add}
          </Button>
        </Group>
        {props.intro}
        {props.count === 0 && !props.adding ? (
          <EmptyState title={props.empty.title}>{props.empty.text}</EmptyState>
        ) : props.count ? (
          props.table
        ) : null}
        {props.form}
      </Stack>
    </Paper>
  );
}

/** Whether an entry answers with a script or a prompt. */
export function HandlerBadge({ kind }: { kind: 'PROMPT' | 'SCRIPT' }) {
  return (
    <Badge variant="outline" color={kind === 'SCRIPT' ? 'indigo.8' : 'teal.9'}>
      {kind === 'SCRIPT' ? 'Script' : 'Prompt'}
    </Badge>
  );
}

/**
 * An entry's form: a light panel, the form named `label` with its heading, the entry's own fields
 * (`children`), then the handler's fields and the form's buttons.
 */
export function EntryForm(props: {
  label: string;
  heading: string;
  form: ReturnType<typeof useEntryForm>;
  state: { error?: CombinedError | undefined; fetching: boolean };
  models: HandlerFieldsProps['models'];
  inputSchemaHelp: string;
  submit: string;
  editing: boolean;
  onDone: () => void;
  children: ReactNode;
}) {
  const { form, state } = props;
  return (
    <Paper withBorder p="md" bg="gray.0">
      <form onSubmit={form.submit} noValidate aria-label={props.label}>
        <Stack gap="sm">
          <Title order={4} size="h5">
            {props.heading}
          </Title>
          {props.children}
          <HandlerFields
            draft={form.draft}
            onChange={form.setDraft}
            error={state.error}
            localErrors={form.localErrors}
            models={props.models}
            inputSchemaHelp={props.inputSchemaHelp}
          />
          <FormActions
            error={form.rest}
            submit={props.submit}
            loading={state.fetching}
            onCancel={props.onDone}
            cancel={props.editing ? 'Close' : 'Cancel'}
            saved={form.saved}
          />
        </Stack>
      </form>
    </Paper>
  );
}

/** The handler's part of an entry's input. */
export interface HandlerInputs {
  handler: { prompt: string } | { script: string };
  modelOverride: string | null;
  inputSchema: Record<string, unknown> | null;
  outputSchema: Record<string, unknown> | null;
}

/**
 * An entry form's state: the handler draft, the local schema errors, the saved mark, the server's
 * field errors (`fields`) and the ones no field of the form shows (`rest`, one sentence), and
 * `submit`, which saves through `save` and closes a new entry's form once it is added.
 */
export function useEntryForm(opts: {
  entry: { handler: HandlerOut; modelOverride?: string | null; inputSchema?: unknown; outputSchema?: unknown } | null;
  error: CombinedError | undefined;
  known: readonly string[];
  save: (handler: HandlerInputs) => Promise<{ error?: CombinedError | undefined }>;
  onDone: () => void;
}) {
  const [draft, setDraft] = useState<HandlerDraft>(() => draftOf(opts.entry));
  const [localErrors, setLocalErrors] = useState<Record<string, EditorError>>({});
  const [saved, setSaved] = useState(false);
  const { fields, other } = fieldErrors(opts.error);
  const rest = [
    ...Object.entries(fields)
      .filter(([k]) => !opts.known.includes(k))
      .map(([k, v]) => `${k}: ${v}`),
    other,
  ]
    .filter(Boolean)
    .join(' ');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const { inputSchema, outputSchema, errors } = parseSchemas(draft);
    setLocalErrors(errors);
    if (Object.keys(errors).length) return;
    const modelOverride = draft.kind === 'PROMPT' && draft.modelOverride ? draft.modelOverride : null;
    const r = await opts.save({ handler: handlerInput(draft), modelOverride, inputSchema, outputSchema });
    if (!r.error) {
      setSaved(true);
      if (!opts.entry) opts.onDone();
    }
  };
  return { draft, setDraft, localErrors, saved, fields, rest, submit };
}
