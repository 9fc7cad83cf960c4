import { Code, Stack, Table, TextInput, Textarea } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { EntriesSection, EntryForm, HandlerBadge, useEntryForm } from '../../entry-list.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { mcpUrl } from '../../../../packages/cli/src/shared/mcp-configs.js';
import { NoData } from '../../states.js';
import { SurfaceSwitches } from '../../surface-switches.js';
import { McpTryIt } from '../../try-it-mcp.js';
import { McpConnect } from './mcp-connect.js';
import { McpGrants } from './mcp-grants.js';
import type { AgentTabProps } from './tab-props.js';
import { ConfirmDialog } from '../../ui.js';
import { EditRemoveButtons, TableHead } from '../../table-parts.js';

const McpQuery = graphql(`
  query McpTab($id: ID!) {
    agent(id: $id) {
      id
      name
      mcpTools {
        id
        name
        description
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

const AddTool = graphql(`
  mutation AddMcpTool($agentId: ID!, $input: McpToolInput!) {
    addMcpTool(agentId: $agentId, input: $input) {
      id
      name
      description
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

const UpdateTool = graphql(`
  mutation UpdateMcpTool($id: ID!, $input: UpdateMcpToolInput!) {
    updateMcpTool(id: $id, input: $input) {
      id
      name
      description
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

const RemoveTool = graphql(`
  mutation RemoveMcpTool($id: ID!) {
    removeMcpTool(id: $id)
  }
`);

type Data = ResultOf<typeof McpQuery>;
type Tool = Data['agent']['mcpTools'][number];

/** The agent's MCP server: its switches, the URL and client configurations, the tools, and Try it. */
export default function McpTab({ agentId }: AgentTabProps) {
  const context = useMemo(() => ({ additionalTypenames: ['McpTool'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: McpQuery, variables: { id: agentId }, context });
  const [editing, setEditing] = useState<'new' | string | null>(null);
  const [removing, setRemoving] = useState<Tool | null>(null);
  const [, remove] = useMutation(RemoveTool);
  if (!data)
    return (
      <NoData
        result={{ fetching, error }}
        loading="Loading the MCP server…"
        retry={() => refetch({ requestPolicy: 'network-only' })}
      />
    );
  const tools = data.agent.mcpTools;
  const url = mcpUrl(location.origin, agentId);
  return (
    <Stack>
      <SurfaceSwitches agentId={agentId} surface="MCP" label="MCP server" />
      <McpConnect agentId={agentId} agentName={data.agent.name} url={url} />
      <McpGrants agentId={agentId} url={url} />
      <EntriesSection
        id="tools-title"
        title="Tools"
        add="Add tool"
        adding={editing === 'new'}
        onAdd={() => setEditing('new')}
        count={tools.length}
        empty={{
          title: 'No tools yet',
          text: 'Add a tool: MCP clients see its name and description and call it with arguments.',
        }}
        table={
          <Table.ScrollContainer minWidth={520}>
            <Table aria-label="Tools" highlightOnHover>
              <TableHead columns={['Name', 'Description', 'Handler']} actions />
              <Table.Tbody>
                {tools.map((t) => (
                  <Table.Tr key={t.id}>
                    <Table.Td>
                      <Code>{t.name}</Code>
                    </Table.Td>
                    <Table.Td>{t.description}</Table.Td>
                    <Table.Td>
                      <HandlerBadge kind={t.handler.kind} />
                    </Table.Td>
                    <Table.Td>
                      <EditRemoveButtons
                        name={t.name}
                        onEdit={() => setEditing(t.id)}
                        onRemove={() => setRemoving(t)}
                      />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        }
        formTitle={editing === 'new' ? 'Add tool' : `Edit tool ${tools.find((x) => x.id === editing)?.name ?? 'tool'}`}
        onClose={() => setEditing(null)}
        form={
          editing ? (
            <ToolForm
              key={editing}
              agentId={agentId}
              tool={tools.find((t) => t.id === editing) ?? null}
              models={data.models}
              onDone={() => setEditing(null)}
            />
          ) : null
        }
      />
      <McpTryIt key={tools.map((t) => t.id).join()} agentId={agentId} tools={tools} />
      <ConfirmDialog
        opened={removing !== null}
        title="Remove tool"
        confirmLabel="Remove"
        confirmColor="red.8"
        onClose={() => setRemoving(null)}
        onConfirm={async () => (await remove({ id: removing!.id }, { additionalTypenames: ['McpTool'] })).error}
      >
        Remove <Code>{removing?.name}</Code>? Clients will no longer list or call it.
      </ConfirmDialog>
    </Stack>
  );
}

function ToolForm({
  agentId,
  tool,
  models,
  onDone,
}: {
  agentId: string;
  tool: Tool | null;
  models: Data['models'];
  onDone: () => void;
}) {
  const [name, setName] = useState(tool?.name ?? '');
  const [description, setDescription] = useState(tool?.description ?? '');
  const [added, add] = useMutation(AddTool);
  const [updated, update] = useMutation(UpdateTool);
  const state = tool ? updated : added;
  const form = useEntryForm({
    entry: tool,
    error: state.error,
    known: ['name', 'description', 'handler', 'modelOverride', 'inputSchema', 'outputSchema'],
    save: (handler) => {
      const input = { name, description, ...handler };
      return tool ? update({ id: tool.id, input }) : add({ agentId, input });
    },
    onDone,
  });
  const { fields } = form;
  return (
    <EntryForm
      label={tool ? `Edit tool ${tool.name}` : 'New tool'}
      form={form}
      state={state}
      models={models}
      inputSchemaHelp='The arguments clients send; without one a tool takes {"input": "<text>"}'
      submit={tool ? 'Save tool' : 'Add tool'}
      editing={tool !== null}
      onDone={onDone}
    >
      <TextInput
        label="Name"
        description="Shown to MCP clients, e.g. lookup_order"
        required
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        error={fields.name}
      />
      <Textarea
        label="Description"
        description={`Tells the client's model when to call the tool; without an input schema, clients are also told it takes {"input": "<text>"}`}
        required
        autosize
        minRows={2}
        value={description}
        onChange={(e) => setDescription(e.currentTarget.value)}
        error={fields.description}
      />
    </EntryForm>
  );
}
