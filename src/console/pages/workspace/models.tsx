import { Badge, Button, Group, Stack, Table, Text } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { messageOf } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import { useIsAdmin } from '../../viewer.js';
import { Notice, FormModal, ConfirmDialog } from '../../ui.js';
import { ModelForm } from './model-form.js';
import { EnvironmentModelsQuery, MODELS, ModelsQuery, type ModelRow } from './models-query.js';
import { providerName } from './model-words.js';
import { EnvironmentModels } from './environment-models.js';

const TestModelMutation = graphql(`
  mutation TestModel($name: String!) {
    testModel(name: $name) {
      ok
      output
      error
      latencyMs
    }
  }
`);

const RemoveModelMutation = graphql(`
  mutation RemoveModel($name: String!) {
    removeModel(name: $name)
  }
`);

type TestResult = ResultOf<typeof TestModelMutation>['testModel'];

/** The workspace's models: the default marked; admins configure, test (answer and latency) and remove them. */
export default function ModelsSection() {
  const isAdmin = useIsAdmin();
  const context = useMemo(() => MODELS, []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: ModelsQuery, context });
  const [environment] = useQuery({ query: EnvironmentModelsQuery });
  const fromEnvironment = environment.data?.environmentModels ?? [];
  // null: closed; 'new': a new model; otherwise the model being edited.
  const [editing, setEditing] = useState<ModelRow | 'new' | null>(null);
  const [warning, setWarning] = useState<string | null>(null);
  const [removing, setRemoving] = useState<ModelRow | null>(null);
  const [tests, setTests] = useState<Record<string, TestResult | { failed: string } | 'running'>>({});
  const [, testModel] = useMutation(TestModelMutation);
  const [, removeModel] = useMutation(RemoveModelMutation);
  const test = async (name: string) => {
    setTests((t) => ({ ...t, [name]: 'running' }));
    const result = await testModel({ name });
    setTests((t) => ({
      ...t,
      [name]: result.data ? result.data.testModel : { failed: result.error ? messageOf(result.error) : 'No answer' },
    }));
  };
  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm">
          Agents and entries name a model; the default serves those that name none.
        </Text>
        {isAdmin && data?.models.length ? <Button onClick={() => setEditing('new')}>Configure model</Button> : null}
      </Group>
      {warning ? (
        <Notice title="Saved with a warning" role="status">
          <Group justify="space-between" wrap="nowrap" align="flex-start">
            <Text size="sm">{warning}</Text>
            <Button size="xs" variant="default" onClick={() => setWarning(null)}>
              Dismiss
            </Button>
          </Group>
        </Notice>
      ) : null}
      <EnvironmentModels models={fromEnvironment} hasDefault={Boolean(data?.models.some((m) => m.isDefault))} />
      {fetching && !data ? (
        <LoadingState label="Loading models…" />
      ) : error && !data ? (
        <ErrorState error={error} retry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !data || data.models.length === 0 ? (
        <EmptyState
          title={fromEnvironment.length ? 'No workspace models yet' : 'No models configured'}
          action={isAdmin ? <Button onClick={() => setEditing('new')}>Configure model</Button> : null}
        >
          {fromEnvironment.length ? 'Runs use the environment’s model above. ' : ''}
          {isAdmin
            ? 'Configure one to name a model per agent or entry, with its provider, key secret and prices.'
            : 'An admin configures them.'}
        </EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={840}>
          <Table striped aria-label="Models">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Name</Table.Th>
                <Table.Th scope="col">Provider and model</Table.Th>
                <Table.Th scope="col">Base URL</Table.Th>
                <Table.Th scope="col">API key secret</Table.Th>
                <Table.Th scope="col">Images</Table.Th>
                <Table.Th scope="col">Price per million tokens (in / out)</Table.Th>
                {isAdmin ? <Table.Th scope="col">Actions</Table.Th> : null}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.models.map((m) => (
                <Table.Tr key={m.id}>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Text fw={600} size="sm">
                        {m.name}
                      </Text>
                      {m.isDefault ? (
                        <Badge size="sm" color="teal.9">
                          Default
                        </Badge>
                      ) : null}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    {providerName(m.provider)} ·{' '}
                    <Text span ff="monospace" size="sm">
                      {m.model}
                    </Text>
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{m.baseUrl ?? '—'}</Table.Td>
                  <Table.Td>{m.apiKeySecret ?? '—'}</Table.Td>
                  <Table.Td>
                    {m.acceptsImages ? (
                      <Badge size="sm" color="indigo.8" variant="outline">
                        Accepts images
                      </Badge>
                    ) : (
                      'Text only'
                    )}
                  </Table.Td>
                  <Table.Td>
                    {m.inputPricePerMillion} / {m.outputPricePerMillion}
                  </Table.Td>
                  {isAdmin ? (
                    <Table.Td>
                      <Stack gap={6}>
                        <Group gap={6} wrap="nowrap">
                          <Button
                            size="xs"
                            variant="light"
                            onClick={() => test(m.name)}
                            loading={tests[m.name] === 'running'}
                            aria-label={`Test ${m.name}`}
                          >
                            Test
                          </Button>
                          <Button
                            size="xs"
                            variant="default"
                            onClick={() => setEditing(m)}
                            aria-label={`Edit ${m.name}`}
                          >
                            Edit
                          </Button>
                          <Button
                            size="xs"
                            color="red"
                            variant="light"
                            onClick={() => setRemoving(m)}
                            aria-label={`Remove ${m.name}`}
                          >
                            Remove
                          </Button>
                        </Group>
                        <TestOutcome result={tests[m.name]} />
                      </Stack>
                    </Table.Td>
                  ) : null}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <FormModal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing && editing !== 'new' ? `Edit model ${editing.name}` : 'Configure model'}
        size="lg"
      >
        {editing !== null ? (
          <ModelForm
            model={editing === 'new' ? null : editing}
            onCancel={() => setEditing(null)}
            onSaved={(w) => {
              setEditing(null);
              setWarning(w);
            }}
          />
        ) : null}
      </FormModal>
      <ConfirmDialog
        opened={removing !== null}
        title="Remove model"
        confirmLabel="Remove model"
        onClose={() => setRemoving(null)}
        onConfirm={async () => (await removeModel({ name: removing!.name }, MODELS)).error}
      >
        {`Remove the model “${removing?.name ?? ''}”? The service refuses while an agent or an entry still names it.`}
      </ConfirmDialog>
    </Stack>
  );
}

/** The last test's outcome: the answer and the latency, or the provider's error. */
function TestOutcome({ result }: { result: TestResult | { failed: string } | 'running' | undefined }) {
  if (!result || result === 'running') return null;
  if ('failed' in result) {
    return (
      <Text size="xs" c="red.9" role="alert">
        {result.failed}
      </Text>
    );
  }
  return (
    <Text size="xs" c={result.ok ? 'teal.9' : 'red.9'} role="status" data-testid="model-test">
      {result.ok ? `Answer: “${result.output ?? ''}”` : `Failed: ${result.error ?? 'no answer'}`} · {result.latencyMs}{' '}
      ms
    </Text>
  );
}
