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
import { FormActions, FormModal } from './ui.js';

// What the HTTP API's endpoints and the MCP server's tools share around the handler editor: the
// section with its Add button and empty state, the handler's badge, the form's frame, and the
// form's submit (schemas parsed locally first, field errors beside their fields, the rest below).

/**
 * An entries section: its title, what it says when empty (with the Add button inside: the one thing
 * to do), its table (the Add button then beside the title) and its form.
 */
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
  /** The add or edit form, in a dialog titled `formTitle` while it is not null. */
  form: ReactNode;
  formTitle: string;
  onClose: () => void;
}) {
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={props.id}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3} size="h4" id={props.id}>
            {props.title}
          </Title>
          {props.count ? (
            <Button onClick={props.onAdd} disabled={props.adding}>
              {props.add}
            </Button>
          ) : null}
        </Group>
        {props.intro}
        {props.count === 0 && !props.adding ? (
          <EmptyState title={props.empty.title} action={<Button onClick={props.onAdd}>{props.add}</Button>}>
            {props.empty.text}
          </EmptyState>
        ) : props.count ? (
          props.table
        ) : null}
      </Stack>
      <FormModal opened={props.form !== null} onClose={props.onClose} title={props.formTitle} size="xl">
        {props.form}
      </FormModal>
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
 * An entry's form (in the section's dialog, as every surface adds things): the form named `label`,
 * the entry's own fields (`children`), then the handler's fields and the form's buttons.
 */
export function EntryForm(props: {
  label: string;
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
    <form onSubmit={form.submit} noValidate aria-label={props.label}>
      <Stack gap="sm">
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
