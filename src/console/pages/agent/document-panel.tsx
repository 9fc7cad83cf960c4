import { Button, Card, Code, CopyButton, Group, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { CodeEditor } from '../../code-editor.js';
import { fieldErrors, messageOf } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { RecordsBrowser } from '../../records-browser.js';
import { ConfirmDialog, FormActions } from '../../ui.js';
import { FieldsEditor, rowsOf, type FieldRow } from './document-fields.js';

const UpdateDocumentMutation = graphql(`
  mutation UpdateDocument($id: ID!, $input: UpdateDocumentInput!) {
    updateDocument(id: $id, input: $input) {
      id
      name
      description
      kind
      content
      fields {
        name
        type
        required
      }
      createdAt
      updatedAt
    }
  }
`);

const DeleteDocumentMutation = graphql(`
  mutation DeleteDocument($id: ID!) {
    deleteDocument(id: $id)
  }
`);

const ExposeMutation = graphql(`
  mutation ExposeDocument($agentId: ID!, $documentId: ID!, $read: Boolean, $write: Boolean, $mcp: Boolean) {
    exposeDocument(agentId: $agentId, documentId: $documentId, read: $read, write: $write, mcp: $mcp) {
      id
      documentId
      read
      write
      mcp
    }
  }
`);

const UnexposeMutation = graphql(`
  mutation UnexposeDocument($agentId: ID!, $documentId: ID!) {
    unexposeDocument(agentId: $agentId, documentId: $documentId)
  }
`);

type Doc = ResultOf<typeof UpdateDocumentMutation>['updateDocument'];
type Exposure = ResultOf<typeof ExposeMutation>['exposeDocument'];

/** The URL of a document on the Document API. */
function documentUrl(agentId: string, documentId: string): string {
  return `${window.location.origin}/agents/${encodeURIComponent(agentId)}/documents/${encodeURIComponent(documentId)}`;
}

/** One document: its settings, content or fields, its exposure, and (databases) its records. */
export function DocumentPanel({
  agentId,
  doc,
  exposure,
  onChanged,
  onDeleted,
}: {
  agentId: string;
  doc: Doc;
  exposure: Exposure | null;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const [name, setName] = useState(doc.name);
  const [description, setDescription] = useState(doc.description);
  const [content, setContent] = useState(doc.content);
  const [rows, setRows] = useState<FieldRow[]>(() => rowsOf(doc.fields));
  const [saved, setSaved] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [update, updateDocument] = useMutation(UpdateDocumentMutation);
  const [, deleteDocument] = useMutation(DeleteDocumentMutation);
  const [expose, exposeDocument] = useMutation(ExposeMutation);
  const [unexpose, unexposeDocument] = useMutation(UnexposeMutation);
  const { fields, other } = fieldErrors(update.error);
  const url = documentUrl(agentId, doc.id);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const input =
      doc.kind === 'TEXT'
        ? { name, description, content }
        : { name, description, fields: rows.map((r) => ({ name: r.name, type: r.type, required: r.required })) };
    const result = await updateDocument({ id: doc.id, input });
    if (!result.error) {
      setSaved(true);
      onChanged();
    }
  };

  const current = { read: exposure?.read ?? false, write: exposure?.write ?? false, mcp: exposure?.mcp ?? false };
  const setExposure = async (change: Partial<typeof current>) => {
    const next = { ...current, ...change };
    const result =
      !next.read && !next.write && !next.mcp
        ? await unexposeDocument({ agentId, documentId: doc.id })
        : await exposeDocument({ agentId, documentId: doc.id, ...next });
    if (!result.error) onChanged();
  };
  const busy = expose.fetching || unexpose.fetching;
  const exposureError = expose.error ?? unexpose.error;

  return (
    <Card withBorder padding="md" component="section" aria-label={`Document ${doc.name}`}>
      <Stack>
        <Group justify="space-between">
          <Title order={4}>{doc.name}</Title>
          <Button size="xs" variant="light" color="red" onClick={() => setDeleting(true)}>
            Delete document
          </Button>
        </Group>
        <Stack gap={4}>
          <Text size="sm" fw={600}>
            Document API
          </Text>
          <Group gap="xs" wrap="nowrap">
            <Code style={{ wordBreak: 'break-all' }}>{url}</Code>
            <CopyButton value={url}>
              {({ copied, copy }) => (
                <Button size="compact-xs" variant="subtle" onClick={copy} aria-label="Copy the document URL">
                  {copied ? 'Copied' : 'Copy'}
                </Button>
              )}
            </CopyButton>
          </Group>
          <Group gap="xl">
            <Switch
              label="Read"
              description="GET the document, query records"
              checked={current.read}
              disabled={busy}
              onChange={(e) => void setExposure({ read: e.currentTarget.checked })}
            />
            <Switch
              label="Write"
              description="PUT content, insert, update and delete records"
              checked={current.write}
              disabled={busy}
              onChange={(e) => void setExposure({ write: e.currentTarget.checked })}
            />
            <Switch
              label="MCP resource"
              description="Listed and read by MCP clients of this agent"
              checked={current.mcp}
              disabled={busy}
              onChange={(e) => void setExposure({ mcp: e.currentTarget.checked })}
            />
          </Group>
          {exposureError ? (
            <Text size="sm" c="red.8" role="alert">
              {messageOf(exposureError)}
            </Text>
          ) : null}
        </Stack>
        <form onSubmit={save} noValidate aria-label="Document settings">
          <Stack>
            <TextInput
              label="Name"
              required
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={fields.name}
            />
            <TextInput
              label="Description"
              value={description}
              onChange={(e) => setDescription(e.currentTarget.value)}
              error={fields.description}
            />
            {doc.kind === 'TEXT' ? (
              <CodeEditor
                label="Content"
                language="text"
                value={content}
                onChange={setContent}
                error={fields.content ? { message: fields.content } : null}
                minHeight={200}
              />
            ) : (
              <FieldsEditor rows={rows} onChange={setRows} error={fields.fields} />
            )}
            <FormActions error={other} submit="Save document" loading={update.fetching} saved={saved} light />
          </Stack>
        </form>
        {doc.kind === 'DATABASE' ? <RecordsBrowser agentId={agentId} documentId={doc.id} fields={doc.fields} /> : null}
      </Stack>
      <ConfirmDialog
        opened={deleting}
        title="Delete document"
        confirmLabel="Delete document"
        onConfirm={async () => {
          const result = await deleteDocument({ id: doc.id });
          if (!result.error) onDeleted();
          return result.error;
        }}
        onClose={() => setDeleting(false)}
      >
        {`Delete “${doc.name}”${doc.kind === 'DATABASE' ? ' with all its records' : ''}? Its Document API URL answers 404 from then on. This cannot be undone.`}
      </ConfirmDialog>
    </Card>
  );
}
