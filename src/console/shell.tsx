import { AppShell, Burger, Button, Group, NavLink, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { hrefOf, linkClick, useRoute } from './router.js';
import { AgentPage } from './pages/agent.js';
import { AgentsPage } from './pages/agents.js';

export interface Viewer {
  id: string;
  name: string;
  email: string;
  role: 'ADMIN' | 'MEMBER';
}

/** The signed-in console: header with the member and sign-out, navigation, and the page. */
export function Shell({ viewer, onSignOut }: { viewer: Viewer; onSignOut: () => void }) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const route = useRoute();
  const agents = { page: 'agents' } as const;
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={opened ? 'Close navigation' : 'Open navigation'} />
            <Title order={1} size="h4">
              Agent Exposure Service
            </Title>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" c="dimmed" visibleFrom="sm">
              {viewer.name || viewer.email} · {viewer.role === 'ADMIN' ? 'Admin' : 'Member'}
            </Text>
            <Button variant="default" size="xs" onClick={onSignOut}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Console sections">
        <NavLink
          component="a"
          href={hrefOf(agents)}
          label="Agents"
          active={route.page === 'agents' || route.page === 'agent'}
          onClick={(e) => {
            close();
            linkClick(agents)(e);
          }}
        />
      </AppShell.Navbar>
      <AppShell.Main>{route.page === 'agent' ? <AgentPage id={route.id} /> : <AgentsPage />}</AppShell.Main>
    </AppShell>
  );
}
