import { ActionIcon, Alert, Badge, Button, Card, Checkbox, Code, CopyButton, Group, Input, SegmentedControl, Select, Stack, Switch, Table, Text, TextInput, Textarea, Title, VisuallyHidden } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { CodeEditor } from '../../code-editor.js';
import { fieldErrors, messageOf } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { RecordsBrowser } from '../../records-browser.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import type { AgentTabProps } from './tab-props.js';
import { when } from '../../format.js';
import { FormModal, ConfirmDialog, FormActions, ScrollTable } from '../../ui.js';

const DocumentsQuery = graphql(`
  query AgentDocuments($id: ID!) {
    agent(id: $id) {
      id
      surfaces { surface enabled }
      documents { id name description kind content fields { name type required } createdAt updatedAt }
      documentExposures { id documentId read write }
    }
  }
`);

const CreateDocumentMutation = graphql(`
  mutation CreateDocument($agentId: ID!, $input: DocumentInput!) {
    createDocument(agentId: $agentId, input: $input) { id name description kind content fields { name type required } createdAt updatedAt }
  }
`);

const UpdateDocumentMutation = graphql(`
  mutation UpdateDocument($id: ID!, $input: UpdateDocumentInput!) {
    updateDocument(id: $id, input: $input) { id name description kind content fields { name type required } createdAt updatedAt }
  }
`);

const DeleteDocumentMutation = graphql(`
  mutation DeleteDocument($id: ID!) {
    deleteDocument(id: $id)
  }
`);

const ExposeMutation = graphql(`
  mutation ExposeDocument($agentId: ID!, $documentId: ID!, $read: Boolean, $write: Boolean) {
    exposeDocument(agentId: $agentId, documentId: $documentId, read: $read, write: $write) { id documentId read write }
  }
`);

const UnexposeMutation = graphql(`
  mutation UnexposeDocument($agentId: ID!, $documentId: ID!) {
    unexposeDocument(agentId: $agentId, documentId: $documentId)
  }
`);

type Data = ResultOf<typeof DocumentsQuery>;
type Doc = Data['agent']['documents'][number];
type Exposure = Data['agent']['documentExposures'][number];
type FieldType = Doc['fields'][number]['type'];
interface FieldRow {
  key: number;
  name: string;
  type: FieldType;
  required: boolean;
}

const FIELD_TYPES: { value: FieldType; label: string }[] = [
  { value: 'STRING', label: 'String' },
  { value: 'NUMBER', label: 'Number' },
  { value: 'BOOLEAN', label: 'Boolean' },
  { value: 'DATETIME', label: 'Date-time' },
  { value: 'JSON', label: 'JSON' },
];

let nextKey = 1;
const rowsOf = (fields: Doc['fields']): FieldRow[] => fields.map((f) => ({ key: nextKey++, ...f }));

/** The URL of a document on the Document API. */
function documentUrl(agentId: string, documentId: string): string {
  return `${window.location.origin}/agents/${encodeURIComponent(agentId)}/documents/${encodeURIComponent(documentId)}`;
}

/** The agent's Document API tab: documents (text or database), their exposure, and a database's records. */
export default function DocumentsTab({ agentId }: AgentTabProps) {
  const context = useMemo(() => ({ additionalTypenames: ['Document', 'DocumentExposure'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: DocumentsQuery, variables: { id: agentId }, context });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const [creating, setCreating] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);

  if (fetching && !data) return <LoadingState label="Loading the documents…" />;
  if (!data) return <ErrorState error={error} retry={reload} />;
  const docs = data.agent.documents;
  const exposureOf = (id: string) => data.agent.documentExposures.find((e) => e.documentId === id) ?? null;
  const current = docs.find((d) => d.id === selected) ?? null;
  const surfaceOn = data.agent.surfaces.find((s) => s.surface === 'DOCUMENT_API')?.enabled ?? false;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>Documents</Title>
        <Button onClick={() => setCreating(true)}>Create document</Button>
      </Group>
      {!surfaceOn ? (
        <Alert color="orange" variant="light">
          The Document API surface is off for this agent: exposed documents answer 403 until it is switched on.
        </Alert>
      ) : null}
      {docs.length === 0 ? (
        <EmptyState title="No documents yet">A text document holds content; a database document holds records of named, typed fields. Expose one to reach it over the Document API.</EmptyState>
      ) : (
        <ScrollTable minWidth={640} label="Documents table">
          <Table aria-label="Documents">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Name</Table.Th>
                <Table.Th scope="col">Kind</Table.Th>
                <Table.Th scope="col">Document API</Table.Th>
                <Table.Th scope="col">Updated</Table.Th>
                <Table.Th scope="col">
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {docs.map((d) => {
                const e = exposureOf(d.id);
                return (
                  <Table.Tr key={d.id} aria-selected={d.id === selected}>
                    <Table.Td>
                      <Text fw={600}>{d.name}</Text>
                      {d.description ? (
                        <Text size="xs" c="dimmed" lineClamp={1}>
                          {d.description}
                        </Text>
                      ) : null}
                    </Table.Td>
                    <Table.Td>{d.kind === 'DATABASE' ? `Database (${d.fields.length} fields)` : 'Text'}</Table.Td>
                    <Table.Td>
                      <ExposureBadges exposure={e} />
                    </Table.Td>
                    <Table.Td>{when(d.updatedAt, '—')}</Table.Td>
                    <Table.Td>
                      <Button size="xs" variant={d.id === selected ? 'filled' : 'default'} onClick={() => setSelected(d.id === selected ? null : d.id)} aria-label={`${d.id === selected ? 'Close' : 'Open'} ${d.name}`} aria-pressed={d.id === selected}>
                        {d.id === selected ? 'Close' : 'Open'}
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      {current ? (
        <DocumentPanel
          key={current.id}
          agentId={agentId}
          doc={current}
          exposure={exposureOf(current.id)}
          onChanged={reload}
          onDeleted={() => {
            setSelected(null);
            reload();
          }}
        />
      ) : null}
      <FormModal opened={creating} onClose={() => setCreating(false)} title="Create document" size="lg">
        <CreateDocumentForm
          agentId={agentId}
          onCancel={() => setCreating(false)}
          onCreated={(id) => {
            setCreating(false);
            setSelected(id);
            reload();
          }}
        />
      </FormModal>
    </Stack>
  );
}

function ExposureBadges({ exposure }: { exposure: Exposure | null }) {
  if (!exposure) return <Badge variant="outline" color="gray.7">Not exposed</Badge>;
  return (
    <Group gap={4}>
      {exposure.read ? <Badge color="teal.9" variant="outline">Read</Badge> : null}
      {exposure.write ? <Badge color="indigo.8" variant="outline">Write</Badge> : null}
    </Group>
  );
}

/** The field schema of a database document: a row per field (name, type, required). */
function FieldsEditor({ rows, onChange, error }: { rows: FieldRow[]; onChange: (rows: FieldRow[]) => void; error?: string | undefined }) {
  const set = (key: number, patch: Partial<FieldRow>) => onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  return (
    <Input.Wrapper label="Fields" description="Each record is an object of these fields; `id` is the record's own" error={error}>
      <Stack gap="xs" mt={4}>
        {rows.length === 0 ? (
          <Text size="sm" c="dimmed">
            No fields yet.
          </Text>
        ) : null}
        {rows.map((r, i) => (
          <Group key={r.key} gap="xs" align="flex-end" wrap="wrap">
            <TextInput label={`Field ${i + 1} name`} value={r.name} onChange={(e) => set(r.key, { name: e.currentTarget.value })} w={180} />
            <Select label={`Field ${i + 1} type`} data={FIELD_TYPES} value={r.type} onChange={(v) => set(r.key, { type: (v ?? 'STRING') as FieldType })} allowDeselect={false} w={140} />
            <Checkbox label="Required" checked={r.required} onChange={(e) => set(r.key, { required: e.currentTarget.checked })} mb={8} />
            <ActionIcon variant="subtle" color="red" onClick={() => onChange(rows.filter((x) => x.key !== r.key))} aria-label={`Remove field ${i + 1}`} mb={4}>
              ×
            </ActionIcon>
          </Group>
        ))}
        <Group>
          <Button size="xs" variant="light" onClick={() => onChange([...rows, { key: nextKey++, name: '', type: 'STRING', required: false }])}>
            Add field
          </Button>
        </Group>
      </Stack>
    </Input.Wrapper>
  );
}

function CreateDocumentForm({ agentId, onCancel, onCreated }: { agentId: string; onCancel: () => void; onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [kind, setKind] = useState<'TEXT' | 'DATABASE'>('TEXT');
  const [content, setContent] = useState('');
  const [rows, setRows] = useState<FieldRow[]>([]);
  const [{ fetching, error }, create] = useMutation(CreateDocumentMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const input =
      kind === 'TEXT'
        ? { name, description, kind, content }
        : { name, description, kind, fields: rows.map((r) => ({ name: r.name, type: r.type, required: r.required })) };
    const result = await create({ agentId, input });
    if (result.data) onCreated(result.data.createDocument.id);
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Create document">
      <Stack>
        <TextInput label="Name" required data-autofocus value={name} onChange={(e) => setName(e.currentTarget.value)} error={fields.name} />
        <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={fields.description} />
        <Input.Wrapper label="Kind">
          <div>
            <SegmentedControl
              aria-label="Kind"
              value={kind}
              onChange={(v) => setKind(v as 'TEXT' | 'DATABASE')}
              data={[
                { value: 'TEXT', label: 'Text' },
                { value: 'DATABASE', label: 'Database' },
              ]}
            />
          </div>
        </Input.Wrapper>
        {kind === 'TEXT' ? (
          <Textarea label="Content" autosize minRows={4} maxRows={14} value={content} onChange={(e) => setContent(e.currentTarget.value)} error={fields.content} />
        ) : (
          <FieldsEditor rows={rows} onChange={setRows} error={fields.fields} />
        )}
        <FormActions error={other ?? fields.kind} submit="Create document" loading={fetching} onCancel={onCancel} light />
      </Stack>
    </form>
  );
}

/** One document: its settings, content or fields, its exposure, and (databases) its records. */
function DocumentPanel({ agentId, doc, exposure, onChanged, onDeleted }: { agentId: string; doc: Doc; exposure: Exposure | null; onChanged: () => void; onDeleted: () => void }) {
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
      doc.kind === 'TEXT' ? { name, description, content } : { name, description, fields: rows.map((r) => ({ name: r.name, type: r.type, required: r.required })) };
    const result = await updateDocument({ id: doc.id, input });
    if (!result.error) {
      setSaved(true);
      onChanged();
    }
  };

  const setExposure = async (read: boolean, write: boolean) => {
    const result = !read && !write ? await unexposeDocument({ agentId, documentId: doc.id }) : await exposeDocument({ agentId, documentId: doc.id, read, write });
    if (!result.error) onChanged();
  };
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
            <Switch label="Read" description="GET the document, query records" checked={exposure?.read ?? false} disabled={expose.fetching || unexpose.fetching} onChange={(e) => void setExposure(e.currentTarget.checked, exposure?.write ?? false)} />
            <Switch
              label="Write"
              description="PUT content, insert, update and delete records"
              checked={exposure?.write ?? false}
              disabled={expose.fetching || unexpose.fetching}
              onChange={(e) => void setExposure(exposure?.read ?? false, e.currentTarget.checked)}
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
            <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={fields.name} />
            <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={fields.description} />
            {doc.kind === 'TEXT' ? (
              <CodeEditor label="Content" language="text" value={content} onChange={setContent} error={fields.content ? { message: fields.content } : null} minHeight={200} />
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
