import { Stack, Title } from '@mantine/core';
import { lazy, Suspense, type ComponentType } from 'react';
import type { WorkspaceSection } from '../router.js';
import { LoadingState } from '../states.js';

export const SECTION_LABELS: Record<WorkspaceSection, string> = {
  members: 'Members',
  keys: 'API Keys',
  secrets: 'Secrets',
  models: 'Models',
  teams: 'Teams and limits',
  events: 'Event webhooks',
  settings: 'Settings',
};

const SECTIONS: Record<WorkspaceSection, ComponentType> = {
  members: lazy(() => import('./workspace/members.js')),
  keys: lazy(() => import('./workspace/keys.js')),
  secrets: lazy(() => import('./workspace/secrets.js')),
  models: lazy(() => import('./workspace/models.js')),
  teams: lazy(() => import('./workspace/teams.js')),
  events: lazy(() => import('./workspace/event-webhooks.js')),
  settings: lazy(() => import('./workspace/settings.js')),
};

/** The workspace's sections (the API decides what a member may do; the pages hide admin-only actions). */
export function WorkspacePage({ section }: { section: WorkspaceSection }) {
  const Section = SECTIONS[section];
  return (
    <Stack>
      <Title order={2}>{SECTION_LABELS[section]}</Title>
      <Suspense fallback={<LoadingState label={`Loading ${SECTION_LABELS[section]}…`} />}>
        <Section />
      </Suspense>
    </Stack>
  );
}
