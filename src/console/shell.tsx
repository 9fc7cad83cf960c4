import { AppShell, Burger, Button, Group, NavLink, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { hrefOf, linkClick, useRoute, WORKSPACE_SECTIONS, type Route } from './router.js';
import { AgentPage } from './pages/agent.js';
import { AgentsPage } from './pages/agents.js';
import { WorkspacePage, SECTION_LABELS } from './pages/workspace.js';
import { AccountPage } from './pages/account.js';
import { DeploymentPage } from './pages/deployment.js';
import { ViewerProvider, type Viewer } from './viewer.js';
import { PersonMenu } from './person-menu.js';
import { WorkspaceSwitcher } from './workspace-switcher.js';

export type { Viewer } from './viewer.js';

/** The signed-in console: header with the member and sign-out, navigation, and the page. */
export function Shell({ viewer, onSignOut }: { viewer: Viewer; onSignOut: () => void }) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const route = useRoute();
  const link = (to: Route, label: string, active: boolean) => (
    <NavLink
      key={hrefOf(to)}
      component="a"
      href={hrefOf(to)}
      label={label}
      active={active}
      aria-current={active ? 'page' : undefined}
      onClick={(e) => {
        close();
        linkClick(to)(e);
      }}
    />
  );
  return (
    <ViewerProvider value={viewer}>
      <AppShell
        header={{ height: 56 }}
        navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
        padding="md"
      >
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between" wrap="nowrap">
            <Group gap="sm" wrap="nowrap">
              <Burger
                opened={opened}
                onClick={toggle}
                hiddenFrom="sm"
                size="sm"
                aria-label={opened ? 'Close navigation' : 'Open navigation'}
              />
              <Title order={1} size="h4" visibleFrom="md">
                Agent Exposure Service
              </Title>
              <WorkspaceSwitcher viewer={viewer} />
            </Group>
            <Group gap="sm" wrap="nowrap">
              <PersonMenu viewer={viewer} />
              <Button variant="default" size="xs" onClick={onSignOut}>
                Sign out
              </Button>
            </Group>
          </Group>
        </AppShell.Header>
        <AppShell.Navbar p="xs" aria-label="Console sections">
          {link({ page: 'agents' }, 'Agents', route.page === 'agents' || route.page === 'agent')}
          <NavLink
            label="Workspace"
            defaultOpened
            childrenOffset={12}
            component="div"
            role="group"
            aria-label="Workspace"
          >
            {WORKSPACE_SECTIONS.map((section) =>
              link(
                { page: 'workspace', section },
                SECTION_LABELS[section],
                route.page === 'workspace' && route.section === section,
              ),
            )}
          </NavLink>
          {/* GraphiQL is a page of its own (its own bundle and policy), not a console route. */}
          <NavLink component="a" href="/graphql" label="GraphQL" description="GraphiQL, signed in as you" />
        </AppShell.Navbar>
        <AppShell.Main>
          {route.page === 'agent' ? (
            <AgentPage id={route.id} tab={route.tab} />
          ) : route.page === 'workspace' ? (
            <WorkspacePage section={route.section} />
          ) : route.page === 'account' ? (
            <AccountPage />
          ) : route.page === 'deployment' ? (
            <DeploymentPage />
          ) : (
            <AgentsPage />
          )}
        </AppShell.Main>
      </AppShell>
    </ViewerProvider>
  );
}
