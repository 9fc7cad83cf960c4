import { Anchor, Checkbox, Code, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { EntriesSection, EntryForm, HandlerBadge, useEntryForm } from '../../entry-list.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { NoData } from '../../states.js';
import { SurfaceSwitches } from '../../surface-switches.js';
import { HttpTryIt } from '../../try-it-http.js';
import type { AgentTabProps } from './tab-props.js';
import { ConfirmDialog } from '../../ui.js';
import { CorsForm } from './cors-form.js';
import { EditRemoveButtons, TableHead } from '../../table-parts.js';

const HttpApiQuery = graphql(`
  query HttpApiTab($id: ID!) {
    agent(id: $id) {
      id
      cors {
        allowPlatformApps
        customOrigins
      }
      httpEndpoints {
        id
        path
        description
        methods
        modelOverride
        inputSchema
        outputSchema
        handler {
          kind
          prompt
          script
        }
        updatedAt
      }
    }
    models {
      id
      name
      provider
      model
      isDefault
    }
  }
`);

const AddEndpoint = graphql(`
  mutation AddHttpEndpoint($agentId: ID!, $input: HttpEndpointInput!) {
    addHttpEndpoint(agentId: $agentId, input: $input) {
      id
      path
      description
      methods
      modelOverride
      inputSchema
      outputSchema
      handler {
        kind
        prompt
        script
      }
      updatedAt
    }
  }
`);

const UpdateEndpoint = graphql(`
  mutation UpdateHttpEndpoint($id: ID!, $input: UpdateHttpEndpointInput!) {
    updateHttpEndpoint(id: $id, input: $input) {
      id
      path
      description
      methods
      modelOverride
      inputSchema
      outputSchema
      handler {
        kind
        prompt
        script
      }
      updatedAt
    }
  }
`);

const RemoveEndpoint = graphql(`
  mutation RemoveHttpEndpoint($id: ID!) {
    removeHttpEndpoint(id: $id)
  }
`);

type Data = ResultOf<typeof HttpApiQuery>;
type Endpoint = Data['agent']['httpEndpoints'][number];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

/** The agent's HTTP API: its switches, endpoints (add, edit, remove), CORS, and Try it. */
export default function HttpApiTab({ agentId }: AgentTabProps) {
  const context = useMemo(() => ({ additionalTypenames: ['HttpEndpoint'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: HttpApiQuery, variables: { id: agentId }, context });
  const [editing, setEditing] = useState<'new' | string | null>(null);
  const [removing, setRemoving] = useState<Endpoint | null>(null);
  const [, remove] = useMutation(RemoveEndpoint);
  if (!data)
    return (
      <NoData
        result={{ fetching, error }}
        loading="Loading the HTTP API…"
        retry={() => refetch({ requestPolicy: 'network-only' })}
      />
    );
  const endpoints = data.agent.httpEndpoints;
  const base = `${location.origin}/agents/${agentId}/api/`;
  return (
    <Stack>
      <SurfaceSwitches agentId={agentId} surface="HTTP_API" label="HTTP API" />
      <EntriesSection
        id="endpoints-title"
        title="Endpoints"
        add="Add endpoint"
        adding={editing === 'new'}
        onAdd={() => setEditing('new')}
        count={endpoints.length}
        empty={{
          title: 'No endpoints yet',
          text: 'Add an endpoint: a path, its methods, and a prompt or a script that answers it.',
        }}
        intro={
          <Text size="sm">
            Each endpoint answers at <Code style={{ wordBreak: 'break-all' }}>{base}&lt;path&gt;</Code> with an agent
            key in <Code>X-Agent-Access-Key</Code>.{' '}
            <Anchor href={`/agents/${agentId}/openapi.json`} target="_blank" rel="noreferrer" size="sm">
              OpenAPI description
            </Anchor>{' '}
            (needs the key too).
          </Text>
        }
        table={
          <Table.ScrollContainer minWidth={560}>
            <Table aria-label="Endpoints" highlightOnHover>
              <TableHead columns={['Path', 'Methods', 'Handler', 'Model', 'Schemas']} actions />
              <Table.Tbody>
                {endpoints.map((e) => (
                  <Table.Tr key={e.id}>
                    <Table.Td>
                      <Code>{e.path}</Code>
                    </Table.Td>
                    <Table.Td>{e.methods.join(', ')}</Table.Td>
                    <Table.Td>
                      <HandlerBadge kind={e.handler.kind} />
                    </Table.Td>
                    <Table.Td>{e.handler.kind === 'SCRIPT' ? '—' : (e.modelOverride ?? 'Agent default')}</Table.Td>
                    <Table.Td>
                      {[e.inputSchema ? 'input' : '', e.outputSchema ? 'output' : ''].filter(Boolean).join(', ') || '—'}
                    </Table.Td>
                    <Table.Td>
                      <EditRemoveButtons
                        name={e.path}
                        onEdit={() => setEditing(e.id)}
                        onRemove={() => setRemoving(e)}
                      />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        }
        formTitle={
          editing === 'new'
            ? 'Add endpoint'
            : `Edit endpoint ${endpoints.find((x) => x.id === editing)?.path ?? 'endpoint'}`
        }
        onClose={() => setEditing(null)}
        form={
          editing ? (
            <EndpointForm
              key={editing}
              agentId={agentId}
              endpoint={endpoints.find((e) => e.id === editing) ?? null}
              models={data.models}
              onDone={() => setEditing(null)}
            />
          ) : null
        }
      />
      <HttpTryIt key={endpoints.map((e) => e.id).join()} agentId={agentId} endpoints={endpoints} />
      <CorsForm key={agentId} agentId={agentId} cors={data.agent.cors} />
      <ConfirmDialog
        opened={removing !== null}
        title="Remove endpoint"
        confirmLabel="Remove"
        confirmColor="red.8"
        onClose={() => setRemoving(null)}
        onConfirm={async () => (await remove({ id: removing!.id }, { additionalTypenames: ['HttpEndpoint'] })).error}
      >
        Remove <Code>{removing?.path}</Code>? Calls to it will get 404.
      </ConfirmDialog>
    </Stack>
  );
}

function EndpointForm({
  agentId,
  endpoint,
  models,
  onDone,
}: {
  agentId: string;
  endpoint: Endpoint | null;
  models: Data['models'];
  onDone: () => void;
}) {
  const [path, setPath] = useState(endpoint?.path ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [methods, setMethods] = useState<string[]>(endpoint ? [...endpoint.methods] : ['POST']);
  const [added, addResult] = useMutation(AddEndpoint);
  const [updated, updateResult] = useMutation(UpdateEndpoint);
  const state = endpoint ? updated : added;
  const form = useEntryForm({
    entry: endpoint,
    error: state.error,
    known: ['path', 'description', 'methods', 'handler', 'modelOverride', 'inputSchema', 'outputSchema'],
    save: (handler) => {
      const input = { path, description, methods: methods as Method[], ...handler };
      return endpoint ? updateResult({ id: endpoint.id, input }) : addResult({ agentId, input });
    },
    onDone,
  });
  const { fields } = form;
  return (
    <EntryForm
      label={endpoint ? `Edit endpoint ${endpoint.path}` : 'New endpoint'}
      form={form}
      state={state}
      models={models}
      inputSchemaHelp="Requests whose JSON body does not match are refused with 400"
      submit={endpoint ? 'Save endpoint' : 'Add endpoint'}
      editing={endpoint !== null}
      onDone={onDone}
    >
      <TextInput
        label="Path"
        description="Relative to /agents/<agent>/api/, may contain slashes; {name} captures a parameter"
        required
        value={path}
        onChange={(e) => setPath(e.currentTarget.value)}
        error={fields.path}
      />
      <TextInput
        label="Description"
        value={description}
        onChange={(e) => setDescription(e.currentTarget.value)}
        error={fields.description}
      />
      <Checkbox.Group label="Methods" value={methods} onChange={setMethods} error={fields.methods}>
        <Group mt="xs">
          {METHODS.map((m) => (
            <Checkbox key={m} value={m} label={m} />
          ))}
        </Group>
      </Checkbox.Group>
    </EntryForm>
  );
}
