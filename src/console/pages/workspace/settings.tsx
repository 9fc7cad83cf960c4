import { Alert, Checkbox, NumberInput, SimpleGrid, Stack, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { CodeEditor, type EditorError } from '../../code-editor.js';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { editorText, parseJsonObject } from '../../json-text.js';
import { NoData } from '../../states.js';
import { useIsAdmin } from '../../viewer.js';
import { when, numberOrNull } from '../../format.js';
import { ErrorNotice, FormActions } from '../../ui.js';
import { FeatureFlagsEditor, GROUPS, SelfHostedBadge, SettingsGroup } from './settings-groups.js';

const SettingsQuery = graphql(`
  query WorkspaceSettings {
    workspace {
      id
      name
      settings {
        activityRetentionDays
        messageRetentionDays
        tags
        creditDefaults
        dataProcessing
        featureFlags
        accountRules
        loginSettings
        valueCapture
      }
    }
  }
`);

const UpdateSettingsMutation = graphql(`
  mutation UpdateWorkspaceSettings($input: WorkspaceSettingsInput!) {
    updateWorkspaceSettings(input: $input) {
      id
      settings {
        activityRetentionDays
        messageRetentionDays
        tags
        creditDefaults
        dataProcessing
        featureFlags
        accountRules
        loginSettings
        valueCapture
      }
    }
  }
`);

type Settings = ResultOf<typeof SettingsQuery>['workspace']['settings'];

/** The free-form groups of a hosted platform, edited as JSON objects: they have no known fields. */
const JSON_GROUPS = ['accountRules', 'loginSettings', 'valueCapture'] as const;
type JsonGroup = (typeof JSON_GROUPS)[number];

/** The workspace settings (the groups the Workspace API overview returns); admins change them. */
export default function SettingsSection() {
  const [{ data, error, fetching }, refetch] = useQuery({ query: SettingsQuery });
  if (!data)
    return (
      <NoData
        result={{ fetching, error }}
        loading="Loading settings…"
        retry={() => refetch({ requestPolicy: 'network-only' })}
      />
    );
  return <SettingsForm settings={data.workspace.settings} />;
}

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function SettingsForm({ settings }: { settings: Settings }) {
  const isAdmin = useIsAdmin();
  const credit = obj(settings.creditDefaults);
  const dp = obj(settings.dataProcessing);
  const [retention, setRetention] = useState<string | number>(settings.activityRetentionDays);
  const [messageRetention, setMessageRetention] = useState<string | number>(settings.messageRetentionDays);
  const [flags, setFlags] = useState<Record<string, boolean>>(() => booleans(settings.featureFlags));
  const [tags, setTags] = useState<string[]>(settings.tags);
  const [agentLimit, setAgentLimit] = useState<string | number>(
    typeof credit.agentDailyCreditLimit === 'number' ? credit.agentDailyCreditLimit : '',
  );
  const [concurrency, setConcurrency] = useState<string | number>(
    typeof credit.maxConcurrentRequests === 'number' ? credit.maxConcurrentRequests : '',
  );
  const [scriptCredits, setScriptCredits] = useState<string | number>(
    typeof credit.scriptRunCredits === 'number' ? credit.scriptRunCredits : '',
  );
  const [dpaAccepted, setDpaAccepted] = useState(dp.dpaAccepted === true);
  const [region, setRegion] = useState(typeof dp.region === 'string' ? dp.region : '');
  const [subprocessors, setSubprocessors] = useState<string[]>(
    Array.isArray(dp.subprocessors) ? dp.subprocessors.map(String) : [],
  );
  const [texts, setTexts] = useState<Record<JsonGroup, string>>(() => ({
    accountRules: editorText(settings.accountRules),
    loginSettings: editorText(settings.loginSettings),
    valueCapture: editorText(settings.valueCapture),
  }));
  const [parseErrors, setParseErrors] = useState<Partial<Record<JsonGroup, EditorError>>>({});
  const [saved, setSaved] = useState(false);
  const [{ fetching, error }, update] = useMutation(UpdateSettingsMutation);
  const { fields, other } = fieldErrors(error);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    // Each JSON group is parsed here first: a mistake is shown at its line and column, nothing is sent.
    const parsed: Partial<Record<JsonGroup, Record<string, unknown>>> = {};
    const problems: Partial<Record<JsonGroup, EditorError>> = {};
    for (const g of JSON_GROUPS) {
      const p = parseJsonObject(texts[g]);
      if (p.ok) parsed[g] = p.value;
      else problems[g] = p;
    }
    setParseErrors(problems);
    if (Object.keys(problems).length) return;
    const scriptRunCredits = numberOrNull(scriptCredits);
    const result = await update({
      input: {
        activityRetentionDays: numberOrNull(retention) ?? settings.activityRetentionDays,
        messageRetentionDays: numberOrNull(messageRetention) ?? settings.messageRetentionDays,
        tags,
        featureFlags: flags,
        creditDefaults: {
          agentDailyCreditLimit: numberOrNull(agentLimit),
          maxConcurrentRequests: numberOrNull(concurrency),
          ...(scriptRunCredits === null ? {} : { scriptRunCredits }),
        },
        dataProcessing: { dpaAccepted, region: region.trim() || null, subprocessors },
        ...parsed,
      },
    });
    if (!result.error) setSaved(true);
  };

  const editorError = (key: JsonGroup): EditorError | null =>
    parseErrors[key] ?? (fields[key] ? { message: fields[key]! } : null);
  return (
    <form onSubmit={submit} noValidate aria-label="Workspace settings">
      <Stack maw={860}>
        {!isAdmin ? (
          <Alert color="gray" role="note">
            Only workspace admins change the settings; you see them as they are.
          </Alert>
        ) : null}
        <SettingsGroup group="retention">
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <NumberInput
              label="Activity retention (days)"
              description="How long activity log entries are kept"
              min={1}
              max={3650}
              allowDecimal={false}
              readOnly={!isAdmin}
              value={retention}
              onChange={setRetention}
              error={fields.activityRetentionDays}
            />
            <NumberInput
              label="Message retention (days)"
              description="How long email and text messages are kept; 0 keeps them forever"
              min={0}
              max={36500}
              allowDecimal={false}
              readOnly={!isAdmin}
              value={messageRetention}
              onChange={setMessageRetention}
              error={fields.messageRetentionDays}
            />
          </SimpleGrid>
        </SettingsGroup>
        <SettingsGroup group="creditDefaults">
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <NumberInput
              label="Agent daily credit limit"
              description="Empty: none"
              min={0}
              readOnly={!isAdmin}
              value={agentLimit}
              onChange={setAgentLimit}
              error={fields.creditDefaults}
            />
            <NumberInput
              label="Max concurrent requests"
              description="Empty: none"
              min={1}
              allowDecimal={false}
              readOnly={!isAdmin}
              value={concurrency}
              onChange={setConcurrency}
            />
            <NumberInput
              label="Credits per script run"
              min={0}
              readOnly={!isAdmin}
              value={scriptCredits}
              onChange={setScriptCredits}
            />
          </SimpleGrid>
        </SettingsGroup>
        <SettingsGroup group="tags">
          <TagsInput
            label="Tags"
            description="Press Enter after each tag"
            readOnly={!isAdmin}
            value={tags}
            onChange={setTags}
            error={fields.tags}
          />
        </SettingsGroup>
        <SettingsGroup group="featureFlags">
          <FeatureFlagsEditor flags={flags} onChange={setFlags} readOnly={!isAdmin} error={fields.featureFlags} />
        </SettingsGroup>
        <SettingsGroup group="dataProcessing">
          <Checkbox
            label="Data processing agreement accepted"
            description={dp.dpaAcceptedAt ? `Accepted ${when(String(dp.dpaAcceptedAt))}` : undefined}
            disabled={!isAdmin}
            checked={dpaAccepted}
            onChange={(e) => setDpaAccepted(e.currentTarget.checked)}
            error={fields.dataProcessing}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput
              label="Region"
              description="Empty: none"
              readOnly={!isAdmin}
              value={region}
              onChange={(e) => setRegion(e.currentTarget.value)}
            />
            <TagsInput label="Subprocessors" readOnly={!isAdmin} value={subprocessors} onChange={setSubprocessors} />
          </SimpleGrid>
        </SettingsGroup>
        <Title order={3} size="h4">
          For a hosted platform
        </Title>
        <Text size="sm" c="dimmed">
          Groups with no fields of their own: each is a JSON object. Account rules and value capture are stored and
          returned by the Workspace API as you write them; login settings are checked and enforced.
        </Text>
        {JSON_GROUPS.map((g) => (
          <Stack key={g} gap={4}>
            {'selfHosted' in GROUPS[g] ? <SelfHostedBadge /> : null}
            <CodeEditor
              label={GROUPS[g].title}
              description={GROUPS[g].text}
              language="json"
              minHeight={80}
              readOnly={!isAdmin}
              value={texts[g]}
              onChange={(v) => setTexts((t) => ({ ...t, [g]: v }))}
              error={editorError(g)}
            />
          </Stack>
        ))}
        {isAdmin ? (
          <FormActions error={other} submit="Save settings" loading={fetching} saved={saved} light />
        ) : (
          <ErrorNotice light>{other}</ErrorNotice>
        )}
      </Stack>
    </form>
  );
}

/** The flags of the stored group: a flag whose value is not a boolean (set by hand) counts as off. */
function booleans(v: unknown): Record<string, boolean> {
  return Object.fromEntries(Object.entries(obj(v)).map(([k, x]) => [k, x === true]));
}
