import { Group, NumberInput, SegmentedControl, Select, Stack, Switch, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { CodeEditor } from '../../code-editor.js';
import { errorAt, fieldErrors } from '../../errors.js';
import { graphql } from '../../graphql.js';
import { HandlerPicker, ModelOverrideSelect } from '../../handler-picker.js';
import { FormActions } from '../../ui.js';

const AddScheduleMutation = graphql(`
  mutation AddSchedule($agentId: ID!, $input: ScheduleInput!) {
    addSchedule(agentId: $agentId, input: $input) {
      id
    }
  }
`);

const DEFAULT_SCRIPT = "// `input` is the schedule's input.\nreturn { ranAt: new Date().toISOString() };\n";
/** Zones offered first; any IANA zone can be typed. */
const ZONES = ['UTC', Intl.DateTimeFormat().resolvedOptions().timeZone].filter((z, i, a) => z && a.indexOf(z) === i);

interface FormProps {
  agentId: string;
  models: readonly { name: string }[];
  onDone: () => void;
  onCancel: () => void;
}

/** Adds a schedule: its name, when it fires (a cron expression in a time zone, or every N seconds), its handler. */
export function ScheduleForm({ agentId, models, onDone, onCancel }: FormProps) {
  const [name, setName] = useState('');
  const [timing, setTiming] = useState<'cron' | 'interval'>('cron');
  const [cron, setCron] = useState('0 9 * * 1-5');
  const [timeZone, setTimeZone] = useState<string>(ZONES[ZONES.length - 1] ?? 'UTC');
  const [intervalSeconds, setIntervalSeconds] = useState<number | string>(3600);
  const [catchUp, setCatchUp] = useState(false);
  const [queue, setQueue] = useState(false);
  const [kind, setKind] = useState<'SCRIPT' | 'PROMPT'>('PROMPT');
  const [script, setScript] = useState(DEFAULT_SCRIPT);
  const [prompt, setPrompt] = useState('');
  const [modelOverride, setModelOverride] = useState<string | null>(null);
  const [add, addSchedule] = useMutation(AddScheduleMutation);
  const { fields, other } = fieldErrors(add.error);
  const handlerError =
    errorAt(add.error, 'input.handler.script') ??
    errorAt(add.error, 'input.handler.prompt') ??
    (fields.handler ? { message: fields.handler } : null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const when =
      timing === 'cron'
        ? { cron, timeZone }
        : { intervalSeconds: typeof intervalSeconds === 'number' ? intervalSeconds : Number(intervalSeconds) };
    const input = {
      name,
      ...when,
      handler: kind === 'SCRIPT' ? { script } : { prompt },
      modelOverride: kind === 'PROMPT' ? modelOverride : null,
      catchUp,
      overlap: queue ? ('QUEUE' as const) : ('SKIP' as const),
    };
    const result = await addSchedule({ agentId, input });
    if (!result.error) onDone();
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Schedule">
      <Stack>
        <TextInput
          label="Name"
          description="Letters, digits and . _ ~ -; unique for this agent"
          required
          data-autofocus
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fields.name}
        />
        <SegmentedControl
          aria-label="When it runs"
          value={timing}
          onChange={(v) => setTiming(v as 'cron' | 'interval')}
          data={[
            { value: 'cron', label: 'On a cron expression' },
            { value: 'interval', label: 'Every N seconds' },
          ]}
        />
        {timing === 'cron' ? (
          <Group grow align="flex-start" wrap="wrap">
            <TextInput
              label="Cron expression"
              description="Minute hour day month weekday (a sixth field first: seconds)"
              value={cron}
              onChange={(e) => setCron(e.currentTarget.value)}
              error={fields.cron}
              ff="monospace"
            />
            <Select
              label="Time zone"
              description="Where the expression's hours are read"
              data={ZONES}
              value={timeZone}
              onChange={(v) => setTimeZone(v ?? 'UTC')}
              searchable
              error={fields.timeZone}
            />
          </Group>
        ) : (
          <NumberInput
            label="Every (seconds)"
            min={1}
            value={intervalSeconds}
            onChange={setIntervalSeconds}
            error={fields.intervalSeconds}
          />
        )}
        <Switch
          label="Catch up: when every instance was down at a run's time, run it once when one is back"
          checked={catchUp}
          onChange={(e) => setCatchUp(e.currentTarget.checked)}
        />
        <Switch
          label="When the previous run is still going, run after it (otherwise skip)"
          checked={queue}
          onChange={(e) => setQueue(e.currentTarget.checked)}
        />
        <HandlerPicker value={kind} onChange={setKind} />
        {kind === 'SCRIPT' ? (
          <CodeEditor
            key="script"
            label="Script"
            description="JavaScript run in the sandbox at each run; what it returns is the run's output"
            language="javascript"
            value={script}
            onChange={setScript}
            error={handlerError}
            minHeight={160}
          />
        ) : (
          <>
            <CodeEditor
              key="prompt"
              label="Prompt"
              description="What the agent does at each run"
              language="text"
              value={prompt}
              onChange={setPrompt}
              error={handlerError}
              minHeight={120}
            />
            <ModelOverrideSelect
              models={models}
              value={modelOverride ?? ''}
              onChange={(n) => setModelOverride(n || null)}
              error={fields.modelOverride}
            />
          </>
        )}
        <FormActions error={other} submit="Add schedule" loading={add.fetching} onCancel={onCancel} />
      </Stack>
    </form>
  );
}
