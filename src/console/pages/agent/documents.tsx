import {
  Badge,
  Button,
  Group,
  Input,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import { DocumentPanel } from './document-panel.js';
import { FieldsEditor, type FieldRow } from './document-fields.js';
import type { AgentTabProps } from './tab-props.js';
import { when } from '../../format.js';
import { FormModal, FormActions, ScrollTable } from '../../ui.js';
import { TableHead } from '../../table-parts.js';
import { SurfaceSwitches } from '../../surface-switches.js';

const DocumentsQuery = graphql(`
  query AgentDocuments($id: ID!) {
    agent(id: $id) {
      id
      documents {
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
      documentExposures {
        id
        documentId
        read
        write
        mcp
      }
    }
  }
`);

const CreateDocumentMutation = graphql(`
  mutation CreateDocument($agentId: ID!, $input: DocumentInput!) {
    createDocument(agentId: $agentId, input: $input) {
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

type Data = ResultOf<typeof DocumentsQuery>;
type Doc = Data['agent']['documents'][number];
type Exposure = Data['agent']['documentExposures'][number];
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

  return (
    <Stack>
      <SurfaceSwitches agentId={agentId} surface="DOCUMENT_API" label="Document API" />
      <Group justify="space-between">
        <Title order={3}>Documents</Title>
        {docs.length ? <Button onClick={() => setCreating(true)}>Create document</Button> : null}
      </Group>
      {docs.length === 0 ? (
        <EmptyState
          title="No documents yet"
          action={<Button onClick={() => setCreating(true)}>Create document</Button>}
        >
          A text document holds content; a database document holds records of named, typed fields. Expose one to reach
          it over the Document API.
        </EmptyState>
      ) : (
        <ScrollTable minWidth={640} label="Documents table">
          <Table aria-label="Documents">
            <TableHead columns={['Name', 'Kind', 'Document API', 'Updated']} actions />
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
                      <Button
                        size="xs"
                        variant={d.id === selected ? 'filled' : 'default'}
                        onClick={() => setSelected(d.id === selected ? null : d.id)}
                        aria-label={`${d.id === selected ? 'Close' : 'Open'} ${d.name}`}
                        aria-pressed={d.id === selected}
                      >
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
  if (!exposure)
    return (
      <Badge variant="outline" color="gray.7">
        Not exposed
      </Badge>
    );
  return (
    <Group gap={4}>
      {exposure.read ? (
        <Badge color="teal.9" variant="outline">
          Read
        </Badge>
      ) : null}
      {exposure.write ? (
        <Badge color="indigo.8" variant="outline">
          Write
        </Badge>
      ) : null}
      {exposure.mcp ? (
        <Badge color="grape.9" variant="outline">
          MCP
        </Badge>
      ) : null}
    </Group>
  );
}

function CreateDocumentForm({
  agentId,
  onCancel,
  onCreated,
}: {
  agentId: string;
  onCancel: () => void;
  onCreated: (id: string) => void;
}) {
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
        <TextInput
          label="Name"
          required
          data-autofocus
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
          <Textarea
            label="Content"
            autosize
            minRows={4}
            maxRows={14}
            value={content}
            onChange={(e) => setContent(e.currentTarget.value)}
            error={fields.content}
          />
        ) : (
          <FieldsEditor rows={rows} onChange={setRows} error={fields.fields} />
        )}
        <FormActions
          error={other ?? fields.kind}
          submit="Create document"
          loading={fetching}
          onCancel={onCancel}
          light
        />
      </Stack>
    </form>
  );
}
