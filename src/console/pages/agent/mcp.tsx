import { Badge, Button, Code, Group, Paper, Stack, Table, Tabs, Text, TextInput, Textarea, Title, VisuallyHidden } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import type { EditorError } from '../../code-editor.js';
import { CopyBlock } from '../../copy-field.js';
import { draftOf, handlerInput, HandlerFields, parseSchemas, type HandlerDraft } from '../../entry-editor.js';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { clientConfigs, mcpUrl, serverName } from '../../mcp-configs.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import { SurfaceSwitches } from '../../surface-switches.js';
import { McpTryIt } from '../../try-it-mcp.js';
import type { AgentTabProps } from './tab-props.js';
import { ConfirmDialog, FormActions } from '../../ui.js';

const McpQuery = graphql(`
  query McpTab($id: ID!) {
    agent(id: $id) {
      id
      name
      mcpTools { id name description modelOverride inputSchema outputSchema handler { kind prompt script } updatedAt }
    }
    models { id name provider model isDefault }
  }
`);

const AddTool = graphql(`
  mutation AddMcpTool($agentId: ID!, $input: McpToolInput!) {
    addMcpTool(agentId: $agentId, input: $input) { id name description modelOverride inputSchema outputSchema handler { kind prompt script } updatedAt }
  }
`);

const UpdateTool = graphql(`
  mutation UpdateMcpTool($id: ID!, $input: UpdateMcpToolInput!) {
    updateMcpTool(id: $id, input: $input) { id name description modelOverride inputSchema outputSchema handler { kind prompt script } updatedAt }
  }
`);

const RemoveTool = graphql(`
  mutation RemoveMcpTool($id: ID!) { removeMcpTool(id: $id) }
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
  if (fetching && !data) return <LoadingState label="Loading the MCP server…" />;
  if (error && !data) return <ErrorState error={error} retry={() => refetch({ requestPolicy: 'network-only' })} />;
  if (!data) return null;
  const tools = data.agent.mcpTools;
  const url = mcpUrl(location.origin, agentId);
  const configs = clientConfigs(url, serverName(data.agent.name));
  return (
    <Stack>
      <SurfaceSwitches agentId={agentId} surface="MCP" label="MCP server" />
      <Paper withBorder p="md" component="section" aria-labelledby="mcp-connect-title">
        <Stack gap="sm">
          <Title order={3} size="h4" id="mcp-connect-title">
            Connect a client
          </Title>
          <CopyBlock label="MCP server URL" value={url} description="Streamable HTTP; the client sends an agent key in the X-Agent-Access-Key header (or as a bearer token)." />
          <Text size="sm">
            Replace the placeholder with an agent key from the API Keys tab. Keys belong in the client's configuration, never in a shared file.
          </Text>
          <Tabs defaultValue="claude" keepMounted={false}>
            <Tabs.List aria-label="MCP clients">
              {configs.map((c) => (
                <Tabs.Tab key={c.id} value={c.id}>
                  {c.client}
                </Tabs.Tab>
              ))}
            </Tabs.List>
            {configs.map((c) => (
              <Tabs.Panel key={c.id} value={c.id} pt="sm">
                <CopyBlock label={`${c.client} configuration`} description={c.file} value={c.json} />
              </Tabs.Panel>
            ))}
          </Tabs>
        </Stack>
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="tools-title">
        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={3} size="h4" id="tools-title">
              Tools
            </Title>
            <Button onClick={() => setEditing('new')} disabled={editing === 'new'}>
              Add tool
            </Button>
          </Group>
          {tools.length === 0 && editing !== 'new' ? (
            <EmptyState title="No tools yet">Add a tool: MCP clients see its name and description and call it with arguments.</EmptyState>
          ) : tools.length ? (
            <Table.ScrollContainer minWidth={520}>
              <Table aria-label="Tools" highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Name</Table.Th>
                    <Table.Th scope="col">Description</Table.Th>
                    <Table.Th scope="col">Handler</Table.Th>
                    <Table.Th scope="col">
                      <VisuallyHidden>Actions</VisuallyHidden>
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {tools.map((t) => (
                    <Table.Tr key={t.id}>
                      <Table.Td>
                        <Code>{t.name}</Code>
                      </Table.Td>
                      <Table.Td>{t.description}</Table.Td>
                      <Table.Td>
                        <Badge variant="outline" color={t.handler.kind === 'SCRIPT' ? 'indigo.8' : 'teal.9'}>
                          {t.handler.kind === 'SCRIPT' ? 'Script' : 'Prompt'}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Group gap="xs" wrap="nowrap">
                          <Button size="xs" variant="light" onClick={() => setEditing(t.id)} aria-label={`Edit ${t.name}`}>
                            Edit
                          </Button>
                          <Button size="xs" variant="outline" color="red.9" onClick={() => setRemoving(t)} aria-label={`Remove ${t.name}`}>
                            Remove
                          </Button>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          ) : null}
          {editing ? <ToolForm key={editing} agentId={agentId} tool={tools.find((t) => t.id === editing) ?? null} models={data.models} onDone={() => setEditing(null)} /> : null}
        </Stack>
      </Paper>
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

function ToolForm({ agentId, tool, models, onDone }: { agentId: string; tool: Tool | null; models: Data['models']; onDone: () => void }) {
  const [name, setName] = useState(tool?.name ?? '');
  const [description, setDescription] = useState(tool?.description ?? '');
  const [draft, setDraft] = useState<HandlerDraft>(() => draftOf(tool));
  const [localErrors, setLocalErrors] = useState<Record<string, EditorError>>({});
  const [added, add] = useMutation(AddTool);
  const [updated, update] = useMutation(UpdateTool);
  const [saved, setSaved] = useState(false);
  const state = tool ? updated : added;
  const { fields, other } = fieldErrors(state.error);
  const known = ['name', 'description', 'handler', 'modelOverride', 'inputSchema', 'outputSchema'];
  const rest = [...Object.entries(fields).filter(([k]) => !known.includes(k)).map(([k, v]) => `${k}: ${v}`), other].filter(Boolean).join(' ');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const { inputSchema, outputSchema, errors } = parseSchemas(draft);
    setLocalErrors(errors);
    if (Object.keys(errors).length) return;
    const input = {
      name,
      description,
      handler: handlerInput(draft),
      modelOverride: draft.kind === 'PROMPT' && draft.modelOverride ? draft.modelOverride : null,
      inputSchema,
      outputSchema,
    };
    const r = tool ? await update({ id: tool.id, input }) : await add({ agentId, input });
    if (!r.error) {
      setSaved(true);
      if (!tool) onDone();
    }
  };
  return (
    <Paper withBorder p="md" bg="gray.0">
      <form onSubmit={submit} noValidate aria-label={tool ? `Edit tool ${tool.name}` : 'New tool'}>
        <Stack gap="sm">
          <Title order={4} size="h5">
            {tool ? `Edit ${tool.name}` : 'New tool'}
          </Title>
          <TextInput label="Name" description="Shown to MCP clients, e.g. lookup_order" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={fields.name} />
          <Textarea
            label="Description"
            description="Tells the client's model when to call the tool"
            required
            autosize
            minRows={2}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            error={fields.description}
          />
          <HandlerFields
            draft={draft}
            onChange={setDraft}
            error={state.error}
            localErrors={localErrors}
            models={models}
            inputSchemaHelp='The arguments clients send; without one a tool takes {"input": "<text>"}'
          />
          <FormActions error={rest} submit={tool ? 'Save tool' : 'Add tool'} loading={state.fetching} onCancel={onDone} cancel={tool ? 'Close' : 'Cancel'} saved={saved} />
        </Stack>
      </form>
    </Paper>
  );
}

