import { Alert, Checkbox, Fieldset, NumberInput, SimpleGrid, Stack, TagsInput, TextInput } from '@mantine/core';
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

const SettingsQuery = graphql(`
  query WorkspaceSettings {
    workspace {
      id
      name
      settings {
        activityRetentionDays
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

/** The settings groups edited as JSON objects (the others have fields of their own). */
const JSON_GROUPS = [
  { key: 'featureFlags', label: 'Feature flags', description: 'Flag name → true or false' },
  { key: 'accountRules', label: 'Account rules', description: 'A JSON object' },
  { key: 'loginSettings', label: 'Login settings', description: 'A JSON object' },
  { key: 'valueCapture', label: 'Value capture', description: 'A JSON object' },
] as const;
type JsonGroup = (typeof JSON_GROUPS)[number]['key'];

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
    featureFlags: editorText(settings.featureFlags),
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
      const p = parseJsonObject(texts[g.key]);
      if (p.ok) parsed[g.key] = p.value;
      else problems[g.key] = p;
    }
    setParseErrors(problems);
    if (Object.keys(problems).length) return;
    const scriptRunCredits = numberOrNull(scriptCredits);
    const result = await update({
      input: {
        activityRetentionDays: numberOrNull(retention) ?? settings.activityRetentionDays,
        tags,
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
          <TagsInput
            label="Tags"
            description="Press Enter after each tag"
            readOnly={!isAdmin}
            value={tags}
            onChange={setTags}
            error={fields.tags}
          />
        </SimpleGrid>
        <Fieldset legend="Credit defaults">
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
        </Fieldset>
        <Fieldset legend="Data processing">
          <Stack gap="sm">
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
          </Stack>
        </Fieldset>
        {JSON_GROUPS.map((g) => (
          <CodeEditor
            key={g.key}
            label={g.label}
            description={g.description}
            language="json"
            minHeight={80}
            readOnly={!isAdmin}
            value={texts[g.key]}
            onChange={(v) => setTexts((t) => ({ ...t, [g.key]: v }))}
            error={editorError(g.key)}
          />
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
