import { Stack } from '@mantine/core';
import type { CombinedError } from '@urql/core';
import { CodeEditor, type EditorError } from './code-editor.js';
import { HandlerPicker, ModelOverrideSelect } from './handler-picker.js';
import { positionedError } from './errors.js';
import { jsonErrorAt } from './try-it-fetch.js';

// The parts an HTTP API endpoint and an MCP tool share: the handler (a prompt or a script, in the
// code editor, with the save-time error at its line and column), the model override (prompts
// only: a script never calls a model) and the input and output JSON schemas.

export interface HandlerDraft {
  kind: 'PROMPT' | 'SCRIPT';
  prompt: string;
  script: string;
  /** '' for the agent's default model. */
  modelOverride: string;
  /** JSON text; '' for none. */
  inputSchema: string;
  outputSchema: string;
}

export interface HandlerOut {
  kind: 'PROMPT' | 'SCRIPT';
  prompt?: string | null;
  script?: string | null;
}

export function draftOf(
  e: { handler: HandlerOut; modelOverride?: string | null; inputSchema?: unknown; outputSchema?: unknown } | null,
  defaults: Partial<HandlerDraft> = {},
): HandlerDraft {
  const schema = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v, null, 2));
  if (!e)
    return {
      kind: 'SCRIPT',
      prompt: '',
      script: 'return { echo: input };',
      modelOverride: '',
      inputSchema: '',
      outputSchema: '',
      ...defaults,
    };
  return {
    kind: e.handler.kind,
    prompt: e.handler.prompt ?? '',
    script: e.handler.script ?? '',
    modelOverride: e.modelOverride ?? '',
    inputSchema: schema(e.inputSchema),
    outputSchema: schema(e.outputSchema),
  };
}

/** The error of a GraphQL field (or one inside it: `inputSchema.type`), with its line and column when given. */
export function errorFor(error: CombinedError | undefined, ...names: string[]): EditorError | null {
  const e = error?.graphQLErrors.find((g) => {
    const f = g.extensions?.field;
    return (
      typeof f === 'string' &&
      names.some((n) => f === n || f.startsWith(`${n}.`) || f === `input.${n}` || f.startsWith(`input.${n}.`))
    );
  });
  return e ? positionedError(e) : null;
}

/** The schemas as JSON objects, or the local parse errors (at their line and column). */
export function parseSchemas(d: HandlerDraft): {
  inputSchema: Record<string, unknown> | null;
  outputSchema: Record<string, unknown> | null;
  errors: Record<string, EditorError>;
} {
  const errors: Record<string, EditorError> = {};
  const one = (name: 'inputSchema' | 'outputSchema'): Record<string, unknown> | null => {
    const text = d[name].trim();
    if (!text) return null;
    const problem = jsonErrorAt(text);
    if (problem) {
      errors[name] = problem;
      return null;
    }
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      errors[name] = { message: 'A JSON Schema is a JSON object, e.g. {"type": "object"}', line: 1, column: 1 };
      return null;
    }
    return value as Record<string, unknown>;
  };
  return { inputSchema: one('inputSchema'), outputSchema: one('outputSchema'), errors };
}

export function handlerInput(d: HandlerDraft): { prompt: string } | { script: string } {
  return d.kind === 'SCRIPT' ? { script: d.script } : { prompt: d.prompt };
}

export interface HandlerFieldsProps {
  draft: HandlerDraft;
  onChange: (d: HandlerDraft) => void;
  error: CombinedError | undefined;
  /** Parse errors of the schemas found before sending. */
  localErrors: Record<string, EditorError>;
  models: readonly { name: string; provider: string; model: string; isDefault: boolean }[];
  inputSchemaHelp: string;
}

/** Handler, model override and schemas of an entry. */
export function HandlerFields({ draft, onChange, error, localErrors, models, inputSchemaHelp }: HandlerFieldsProps) {
  const set = (patch: Partial<HandlerDraft>) => onChange({ ...draft, ...patch });
  const handlerError = errorFor(error, 'handler');
  const scriptError = errorFor(error, 'handler.script') ?? (draft.kind === 'SCRIPT' ? handlerError : null);
  const promptError = errorFor(error, 'handler.prompt') ?? (draft.kind === 'PROMPT' ? handlerError : null);
  return (
    <Stack gap="sm">
      <HandlerPicker value={draft.kind} onChange={(kind) => set({ kind })} />
      {draft.kind === 'SCRIPT' ? (
        <CodeEditor
          key="script"
          label="Script"
          description="An async function body: `input` is the request body (or the tool's arguments), `request` the rest; return the answer."
          language="javascript"
          value={draft.script}
          onChange={(script) => set({ script })}
          error={scriptError}
        />
      ) : (
        <>
          <CodeEditor
            key="prompt"
            label="Prompt"
            description="What the agent does with the input (added to its instructions)."
            language="text"
            value={draft.prompt}
            onChange={(prompt) => set({ prompt })}
            error={promptError}
            minHeight={100}
          />
          <ModelOverrideSelect
            models={models}
            value={draft.modelOverride}
            onChange={(modelOverride) => set({ modelOverride })}
            error={errorFor(error, 'modelOverride')?.message}
          />
        </>
      )}
      <CodeEditor
        label="Input schema (JSON Schema, optional)"
        description={inputSchemaHelp}
        language="json"
        value={draft.inputSchema}
        onChange={(inputSchema) => set({ inputSchema })}
        error={localErrors.inputSchema ?? errorFor(error, 'inputSchema')}
        minHeight={80}
      />
      <CodeEditor
        label="Output schema (JSON Schema, optional)"
        description="The shape of the answer's output"
        language="json"
        value={draft.outputSchema}
        onChange={(outputSchema) => set({ outputSchema })}
        error={localErrors.outputSchema ?? errorFor(error, 'outputSchema')}
        minHeight={80}
      />
    </Stack>
  );
}
