import { Badge, Button, Group, Paper, Stack, Title } from '@mantine/core';
import type { CombinedError } from '@urql/core';
import { useState, type FormEvent, type ReactNode } from 'react';
import type { EditorError } from './code-editor.js';
import { draftOf, handlerInput, parseSchemas, type HandlerDraft, type HandlerOut } from './entry-editor.js';
import { fieldErrors } from './errors.js';
import { EmptyState } from './states.js';

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
        {props.count === 0 && !props.adding ? <EmptyState title={props.empty.title}>{props.empty.text}</EmptyState> : props.count ? props.table : null}
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

/** The frame of an entry's form: a light panel, the form named `label`, and its heading. */
export function EntryFormFrame({ label, heading, onSubmit, children }: { label: string; heading: string; onSubmit: (event: FormEvent) => void; children: ReactNode }) {
  return (
    <Paper withBorder p="md" bg="gray.0">
      <form onSubmit={onSubmit} noValidate aria-label={label}>
        <Stack gap="sm">
          <Title order={4} size="h5">
            {heading}
          </Title>
          {children}
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
  const rest = [...Object.entries(fields).filter(([k]) => !opts.known.includes(k)).map(([k, v]) => `${k}: ${v}`), other].filter(Boolean).join(' ');
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
