import { Badge, Button, Fieldset, Group, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useState, type ReactNode } from 'react';

// The Settings page's groups (issue 51): each says in a sentence what it is for, and whether the
// service acts on it; the groups a hosted platform needs and a self-hosted service hardly does are
// marked as such.

/** The sentence under each group's title, and whether it means little on a self-hosted service. */
export const GROUPS = {
  retention: {
    title: 'Retention',
    text: 'Enforced: housekeeping deletes activity entries, and stored email and text messages, once they are older than this.',
  },
  creditDefaults: {
    title: 'Credit defaults',
    text: "Enforced: the limits a new agent starts with (an agent's own are on its Limits tab), and what one script run costs.",
  },
  tags: {
    title: 'Tags',
    text: "Labels for your own tooling, returned by the Workspace API; the service itself doesn't act on them.",
  },
  featureFlags: {
    title: 'Feature flags',
    text: "On/off switches for your own tooling, returned by the Workspace API; the service itself doesn't act on them.",
  },
  dataProcessing: {
    title: 'Data processing',
    text: 'A record of the data processing agreement, the subprocessors and the region. Self-hosted, you process the data yourself: this holds only what you choose to record.',
    selfHosted: true,
  },
  accountRules: {
    title: 'Account rules',
    text: 'Free-form rules for accounts on a hosted platform. Self-hosted, there are no accounts but the members.',
    selfHosted: true,
  },
  loginSettings: {
    title: 'Login settings',
    text: 'How people sign in to this workspace: ssoRequired (single sign-on only; member tokens still work for the API and the CLI), allowedEmailDomains (where a single sign-on may come from; empty: anywhere), jitMembership (people of those domains join with a role, MEMBER or VIEWER, on their first single sign-on).',
  },
  valueCapture: {
    title: 'Value capture',
    text: 'Free-form billing settings of a hosted platform. Self-hosted, nothing is billed: credits only limit use.',
    selfHosted: true,
  },
} as const satisfies Record<string, { title: string; text: string; selfHosted?: boolean }>;

export type GroupKey = keyof typeof GROUPS;

/** The badge of a group that means little on a self-hosted service. */
export function SelfHostedBadge() {
  return (
    <Badge size="sm" variant="outline" color="gray.8" title="Stored and returned; nothing in the service acts on it">
      Means little self-hosted
    </Badge>
  );
}

/** A group of settings: its title (with the self-hosted mark), its sentence, its fields. */
export function SettingsGroup({ group, children }: { group: GroupKey; children: ReactNode }) {
  const g: { title: string; text: string; selfHosted?: boolean } = GROUPS[group];
  return (
    <Fieldset
      legend={
        <Group gap="xs" component="span">
          <span>{g.title}</span>
          {g.selfHosted ? <SelfHostedBadge /> : null}
        </Group>
      }
    >
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          {g.text}
        </Text>
        {children}
      </Stack>
    </Fieldset>
  );
}

/**
 * Feature flags as switches, one per flag, and a field to add one. A flag once saved stays (the
 * service merges flags it is sent): to retire one, switch it off.
 */
export function FeatureFlagsEditor({
  flags,
  onChange,
  readOnly,
  error,
}: {
  flags: Record<string, boolean>;
  onChange: (next: Record<string, boolean>) => void;
  readOnly: boolean;
  error?: string;
}) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const names = Object.keys(flags).sort();
  const add = () => {
    const flag = name.trim();
    if (!flag) return setProblem('Give the flag a name');
    if (flag.length > 100) return setProblem('At most 100 characters');
    if (flag in flags) return setProblem(`There is a flag “${flag}” already`);
    setProblem(null);
    setName('');
    onChange({ ...flags, [flag]: true });
  };
  return (
    <Stack gap="xs">
      {names.length ? (
        names.map((flag) => (
          <Switch
            key={flag}
            label={flag}
            checked={flags[flag] === true}
            disabled={readOnly}
            onChange={(e) => onChange({ ...flags, [flag]: e.currentTarget.checked })}
          />
        ))
      ) : (
        <Text size="sm">No flags yet.</Text>
      )}
      {error ? (
        <Text size="sm" c="red.9" role="alert">
          {error}
        </Text>
      ) : null}
      {readOnly ? null : (
        <Group align="flex-end" gap="xs">
          <TextInput
            label="New flag"
            description="Added switched on; switch a flag off to retire it"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                add();
              }
            }}
            error={problem}
          />
          <Button variant="light" onClick={add}>
            Add flag
          </Button>
        </Group>
      )}
    </Stack>
  );
}
