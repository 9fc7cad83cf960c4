import { Button, Menu } from '@mantine/core';
import { hrefOf, linkClick, type Route } from './router.js';
import { viewerLabel } from './viewer-label.js';
import type { Viewer } from './viewer.js';

/** The header's person menu: their account, and the deployment's workspaces for its operator. */
export function PersonMenu({ viewer }: { viewer: Viewer }) {
  const item = (to: Route, label: string) => (
    <Menu.Item component="a" href={hrefOf(to)} onClick={linkClick(to)}>
      {label}
    </Menu.Item>
  );
  return (
    <Menu position="bottom-end" withInitialFocusPlaceholder={false}>
      <Menu.Target>
        <Button variant="subtle" color="dark" size="xs" aria-label={`${viewerLabel(viewer)}: your account menu`}>
          {viewerLabel(viewer)} ▾
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {item({ page: 'account' }, 'Your account')}
        {viewer.account.operator ? item({ page: 'deployment' }, 'Deployment') : null}
      </Menu.Dropdown>
    </Menu>
  );
}
