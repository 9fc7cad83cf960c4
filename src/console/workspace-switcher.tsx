import { Badge, Button, Group, Menu, Text } from '@mantine/core';
import { useState } from 'react';
import { useMutation } from 'urql';
import { messageOf } from './errors.js';
import { graphql } from './graphql.js';
import { ROLE_NAMES } from './viewer-label.js';
import { currentWorkspace, type Viewer } from './viewer.js';

const SwitchWorkspaceMutation = graphql(`
  mutation SwitchWorkspace($workspace: String!) {
    switchWorkspace(workspace: $workspace) {
      id
    }
  }
`);

/** Loads the console afresh at the agents list: no cache, no page of the old workspace stays. */
export function reloadConsole(): void {
  window.location.assign('/console');
}

/** A VIEWER's workspace: they may look, not change. */
export function ReadOnlyBadge() {
  return (
    <Badge variant="outline" color="dark.4" size="sm" title="You can look at this workspace, not change it">
      read-only
    </Badge>
  );
}

/**
 * The header's workspace: its name, with a menu of the person's other workspaces. A session opened
 * with a member token stays in that token's workspace, so it gets no menu (the server would refuse).
 */
export function WorkspaceSwitcher({ viewer }: { viewer: Viewer }) {
  const current = currentWorkspace(viewer);
  const [{ fetching }, switchTo] = useMutation(SwitchWorkspaceMutation);
  const [problem, setProblem] = useState<string | null>(null);
  const name = current?.workspace.name ?? 'Workspace';
  const badge = viewer.role === 'VIEWER' ? <ReadOnlyBadge /> : null;
  if (viewer.memberToken || viewer.workspaces.length < 2)
    return (
      <Group gap={6} wrap="nowrap" data-testid="workspace-name">
        <Text size="sm" fw={600} truncate maw={220}>
          {name}
        </Text>
        {badge}
        {viewer.memberToken ? (
          <Text size="xs" c="dimmed" visibleFrom="md">
            signed in with a member token
          </Text>
        ) : null}
      </Group>
    );
  const choose = async (id: string) => {
    setProblem(null);
    const result = await switchTo({ workspace: id });
    if (result.error) setProblem(messageOf(result.error));
    else reloadConsole();
  };
  return (
    <Group gap={6} wrap="nowrap">
      <Menu
        position="bottom-start"
        closeOnItemClick={false}
        withInitialFocusPlaceholder={false}
        onClose={() => setProblem(null)}
      >
        <Menu.Target>
          <Button variant="default" size="xs" loading={fetching} aria-label={`Workspace: ${name}. Switch workspace`}>
            {name} ▾
          </Button>
        </Menu.Target>
        <Menu.Dropdown aria-label="Your workspaces">
          {viewer.workspaces.map((w) => (
            <Menu.Item
              key={w.workspace.id}
              disabled={w.current}
              aria-current={w.current ? 'true' : undefined}
              onClick={() => void choose(w.workspace.id)}
              rightSection={
                <Text size="xs" c="dimmed">
                  {ROLE_NAMES[w.role]}
                </Text>
              }
            >
              {w.workspace.name}
              {w.current ? ' (current)' : ''}
            </Menu.Item>
          ))}
          {problem ? (
            <Text size="sm" c="red.9" role="alert" px="sm" py={4} maw={280}>
              {problem}
            </Text>
          ) : null}
        </Menu.Dropdown>
      </Menu>
      {badge}
    </Group>
  );
}
