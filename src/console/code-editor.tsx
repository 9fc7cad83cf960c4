import { Input } from '@mantine/core';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { json } from '@codemirror/lang-json';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useId, useRef } from 'react';

/** Where the service says a text is wrong: 1-based line and column, as in its GraphQL errors. */
export interface EditorError {
  message: string;
  line?: number | undefined;
  column?: number | undefined;
}

export interface CodeEditorProps {
  label: string;
  description?: string;
  language: 'javascript' | 'json' | 'text';
  value: string;
  onChange: (value: string) => void;
  /** Shown under the editor and, when it names a line, marked at that line and column. */
  error?: EditorError | null | undefined;
  minHeight?: number;
  readOnly?: boolean;
}

function languageOf(language: CodeEditorProps['language']) {
  return language === 'javascript' ? javascript() : language === 'json' ? json() : [];
}

/** The error as a diagnostic at its line and column (clamped to the text). */
function diagnosticOf(state: EditorState, error: EditorError): Diagnostic[] {
  if (!error.line) return [];
  const line = state.doc.line(Math.min(Math.max(error.line, 1), state.doc.lines));
  const from = Math.min(line.from + Math.max((error.column ?? 1) - 1, 0), line.to);
  return [{ from, to: Math.min(from + 1, line.to), severity: 'error', message: error.message }];
}

/**
 * CodeMirror 6 for scripts and JSON schemas: line numbers, highlighting, Tab indents (Escape then
 * Tab leaves the editor, CodeMirror's rule for keyboard users), and the service's save-time error
 * shown at its line and column.
 */
export function CodeEditor({
  label,
  description,
  language,
  value,
  onChange,
  error,
  minHeight = 160,
  readOnly = false,
}: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const lang = useRef(new Compartment());
  const id = useId();
  const labelId = `${id}-label`;
  const errorId = `${id}-error`;
  const descriptionId = `${id}-description`;

  useEffect(() => {
    const state = EditorState.create({
      doc: value,
      extensions: [
        lineNumbers(),
        history(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        lintGutter(),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        lang.current.of(languageOf(language)),
        EditorState.readOnly.of(readOnly),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) onChangeRef.current(u.state.doc.toString());
        }),
        EditorView.contentAttributes.of({
          'aria-labelledby': labelId,
          'aria-describedby': [description ? descriptionId : '', errorId].filter(Boolean).join(' '),
          'aria-multiline': 'true',
        }),
        EditorView.theme({
          '&': { minHeight: `${minHeight}px`, fontSize: '13px' },
          '.cm-scroller': { fontFamily: 'ui-monospace, monospace' },
        }),
      ],
    });
    view.current = new EditorView({ state, parent: host.current! });
    return () => view.current?.destroy();
    // The editor is made once; value and error follow in the effects below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    const v = view.current;
    if (v) v.dispatch(setDiagnostics(v.state, error ? diagnosticOf(v.state, error) : []));
  }, [error, value]);

  const where = error?.line ? `Line ${error.line}${error.column ? `, column ${error.column}` : ''}: ` : '';
  return (
    <Input.Wrapper
      label={label}
      labelProps={{ id: labelId }}
      description={description}
      descriptionProps={{ id: descriptionId }}
      error={error ? `${where}${error.message}` : undefined}
      errorProps={{ id: errorId, role: 'alert' }}
    >
      <div
        ref={host}
        data-testid="code-editor"
        style={{
          border: `1px solid ${error ? 'var(--mantine-color-error)' : 'var(--mantine-color-gray-4)'}`,
          borderRadius: 4,
          marginTop: 4,
        }}
      />
    </Input.Wrapper>
  );
}
