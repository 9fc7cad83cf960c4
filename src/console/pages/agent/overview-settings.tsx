import {
  Alert,
  Button,
  Checkbox,
  Fieldset,
  Group,
  NumberInput,
  Radio,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  TagsInput,
  Text,
} from '@mantine/core';
import type { CombinedError } from '@urql/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useCanWrite } from '../../viewer.js';
import { useMutation, useQuery } from 'urql';
import { fieldErrors } from '../../errors.js';
import type { ResultOf } from '../../graphql.js';
import {
  CAPABILITIES,
  OverviewExtrasQuery,
  PRESETS,
  SetCapabilitiesMutation,
  SetGuardrailsMutation,
  UpdateAgentMutation,
  type Capabilities,
  type Extras,
  type Preset,
} from './overview-operations.js';
import { NoData } from '../../states.js';
import type { AgentQuery } from './agent-query.js';
import { numberOrNull } from '../../format.js';
import { AgentTextFields } from '../../agent-fields.js';

/** The value of the team select that stands for "no team". */
const NO_TEAM = '';

type Data = ResultOf<typeof AgentQuery>;

/** The value of the model select that stands for "no default model of its own". */
const WORKSPACE_DEFAULT = '';

/** The agent's settings, below the Overview's dashboard: its own fields, team, capabilities and guardrails. */
export function AgentSettings({ agent, models }: { agent: Data['agent']; models: Data['models'] }) {
  const [{ data, error, fetching }, refetch] = useQuery({ query: OverviewExtrasQuery, variables: { id: agent.id } });
  if (!data)
    return (
      <NoData
        result={{ fetching, error }}
        loading="Loading the settings…"
        retry={() => refetch({ requestPolicy: 'network-only' })}
      />
    );
  return <OverviewFields agent={agent} models={models} extras={data} />;
}

function OverviewFields({ agent, models, extras }: { agent: Data['agent']; models: Data['models']; extras: Extras }) {
  const canWrite = useCanWrite();
  const [name, setName] = useState(agent.name);
  const [description, setDescription] = useState(agent.description);
  const [instructions, setInstructions] = useState(agent.instructions);
  const [defaultModel, setDefaultModel] = useState(agent.defaultModel ?? WORKSPACE_DEFAULT);
  const [visibility, setVisibility] = useState<Data['agent']['visibility']>(agent.visibility);
  const [teamId, setTeamId] = useState(extras.agent.teamId ?? NO_TEAM);
  const initialCapabilities = extras.agent.capabilities;
  const [capabilities, setCapabilityValues] = useState<Capabilities>({ ...initialCapabilities });
  const g = extras.agent.guardrails;
  const [blocked, setBlocked] = useState<string[]>(g.blockedInputPatterns);
  const [redact, setRedact] = useState<string[]>(g.redactOutputPatterns);
  const [presets, setPresets] = useState<string[]>(g.redactPresets);
  const [maxInputChars, setMaxInputChars] = useState<string | number>(g.maxInputChars ?? '');
  const [maxOutputTokens, setMaxOutputTokens] = useState<string | number>(g.maxOutputTokens ?? '');
  const [maxToolSteps, setMaxToolSteps] = useState<string | number>(g.maxToolSteps);
  const [maxCreditsPerRun, setMaxCreditsPerRun] = useState<string | number>(g.maxCreditsPerRun ?? '');
  const [saved, setSaved] = useState(false);
  const [{ fetching: updating }, update] = useMutation(UpdateAgentMutation);
  const [{ fetching: settingCapabilities }, setCapabilities] = useMutation(SetCapabilitiesMutation);
  const [{ fetching: settingGuardrails }, setGuardrails] = useMutation(SetGuardrailsMutation);
  const fetching = updating || settingCapabilities || settingGuardrails;
  // The errors of the last save, from whichever of the three mutations failed.
  const [errors, setErrors] = useState<CombinedError[]>([]);
  const { fields, other } = useMemo(() => {
    const merged = { fields: {} as Record<string, string>, other: [] as string[] };
    for (const e of errors) {
      const f = fieldErrors(e);
      Object.assign(merged.fields, f.fields);
      if (f.other) merged.other.push(f.other);
    }
    return { fields: merged.fields, other: merged.other.length ? merged.other.join(' ') : null };
  }, [errors]);
  const workspaceDefault = models.find((m) => m.isDefault);
  const options = [
    {
      value: WORKSPACE_DEFAULT,
      label: workspaceDefault ? `Workspace default (${workspaceDefault.name})` : 'Workspace default',
    },
    ...models.map((m) => ({ value: m.name, label: `${m.name} — ${m.provider.toLowerCase()} ${m.model}` })),
    // A name the agent uses that is not a configured model (an environment provider takes it).
    ...(agent.defaultModel && !models.some((m) => m.name === agent.defaultModel)
      ? [{ value: agent.defaultModel, label: agent.defaultModel }]
      : []),
  ];
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const failed: CombinedError[] = [];
    const result = await update({
      id: agent.id,
      input: {
        name,
        description,
        instructions,
        defaultModel: defaultModel === WORKSPACE_DEFAULT ? null : defaultModel,
        visibility,
        teamId: teamId === NO_TEAM ? null : teamId,
      },
    });
    if (result.error) failed.push(result.error);
    // Capabilities and guardrails are sent only when they changed (each is a mutation of its own).
    if (CAPABILITIES.some(({ key }) => capabilities[key] !== initialCapabilities[key])) {
      const { endpointManagement, documents, messaging } = capabilities;
      const r = await setCapabilities({ agentId: agent.id, input: { endpointManagement, documents, messaging } });
      if (r.error) failed.push(r.error);
    }
    const guardrails = {
      blockedInputPatterns: blocked,
      redactOutputPatterns: redact,
      redactPresets: presets as Preset[],
      maxInputChars: numberOrNull(maxInputChars),
      maxOutputTokens: numberOrNull(maxOutputTokens),
      ...(numberOrNull(maxToolSteps) === null ? {} : { maxToolSteps: numberOrNull(maxToolSteps)! }),
      maxCreditsPerRun: numberOrNull(maxCreditsPerRun),
    };
    const changed = (Object.keys(guardrails) as (keyof typeof guardrails)[]).some(
      (k) => JSON.stringify(guardrails[k]) !== JSON.stringify(g[k]),
    );
    if (changed) {
      const r = await setGuardrails({ agentId: agent.id, input: guardrails });
      if (r.error) failed.push(r.error);
    }
    setErrors(failed);
    if (!failed.length) setSaved(true);
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Settings">
      {/* A VIEWER reads the settings: a disabled fieldset disables every field in it at once. */}
      <fieldset disabled={!canWrite} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
        <Stack maw={760}>
          <AgentTextFields
            value={{ name, description, instructions }}
            set={{ name: setName, description: setDescription, instructions: setInstructions }}
            errors={fields}
            rows={{ min: 6, max: 20 }}
          />
          <Select
            label="Default model"
            description="Prompt handlers without a model of their own use it"
            data={options}
            value={defaultModel}
            onChange={(v) => setDefaultModel(v ?? WORKSPACE_DEFAULT)}
            allowDeselect={false}
            error={fields.defaultModel}
          />
          <Radio.Group
            label="Visibility"
            value={visibility}
            onChange={(v) => setVisibility(v as Data['agent']['visibility'])}
            error={fields.visibility}
          >
            <Group mt="xs">
              <Radio value="WORKSPACE" label="Workspace — every member sees it" />
              <Radio value="PRIVATE" label="Private — its creator and admins" />
            </Group>
          </Radio.Group>
          <Select
            label="Team"
            description="The team's daily credit limit applies to its agents together"
            data={[
              { value: NO_TEAM, label: 'No team' },
              ...extras.workspace.teams.map((t) => ({ value: t.id, label: t.name })),
            ]}
            value={teamId}
            onChange={(v) => setTeamId(v ?? NO_TEAM)}
            allowDeselect={false}
            error={fields.teamId}
          />
          <Fieldset legend="Capabilities">
            <Stack gap="sm">
              {CAPABILITIES.map(({ key, label, description }) => (
                <Switch
                  key={key}
                  label={label}
                  description={description}
                  checked={capabilities[key]}
                  onChange={(e) => setCapabilityValues({ ...capabilities, [key]: e.currentTarget.checked })}
                  error={fields[key]}
                />
              ))}
            </Stack>
          </Fieldset>
          <Fieldset legend="Guardrails">
            <Stack gap="sm">
              <TagsInput
                label="Blocked input patterns"
                description="A phrase or an RE2 regular expression; an input that matches is refused. Press Enter after each"
                value={blocked}
                onChange={setBlocked}
                error={fields.blockedInputPatterns}
              />
              <TagsInput
                label="Redacted output patterns"
                description="Matches are replaced in the agent's answers. Press Enter after each"
                value={redact}
                onChange={setRedact}
                error={fields.redactOutputPatterns}
              />
              <Checkbox.Group
                label="Redact in answers"
                value={presets}
                onChange={setPresets}
                error={fields.redactPresets}
              >
                <Group mt="xs">
                  {PRESETS.map((p) => (
                    <Checkbox key={p.value} value={p.value} label={p.label} />
                  ))}
                </Group>
              </Checkbox.Group>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <NumberInput
                  label="Max input characters"
                  description="Empty: no limit"
                  min={1}
                  allowDecimal={false}
                  value={maxInputChars}
                  onChange={setMaxInputChars}
                  error={fields.maxInputChars}
                />
                <NumberInput
                  label="Max output tokens"
                  description="Empty: no limit"
                  min={1}
                  allowDecimal={false}
                  value={maxOutputTokens}
                  onChange={setMaxOutputTokens}
                  error={fields.maxOutputTokens}
                />
                <NumberInput
                  label="Max tool steps"
                  description="1 to 100"
                  min={1}
                  max={100}
                  allowDecimal={false}
                  value={maxToolSteps}
                  onChange={setMaxToolSteps}
                  error={fields.maxToolSteps}
                />
                <NumberInput
                  label="Max credits per run"
                  description="Empty: no limit"
                  min={0}
                  value={maxCreditsPerRun}
                  onChange={setMaxCreditsPerRun}
                  error={fields.maxCreditsPerRun}
                />
              </SimpleGrid>
            </Stack>
          </Fieldset>
          {other ? (
            <Alert color="red" role="alert">
              {other}
            </Alert>
          ) : null}
          {canWrite ? (
            <Group>
              <Button type="submit" loading={fetching}>
                Save
              </Button>
              <Text size="sm" c="teal.9" role="status" aria-live="polite">
                {saved ? 'Saved' : ''}
              </Text>
            </Group>
          ) : null}
        </Stack>
      </fieldset>
    </form>
  );
}
