import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { InvitationPage } from './pages/invitation.js';
import { cssVariables, theme } from './theme.js';

const root = document.getElementById('root');
if (!root) throw new Error('The console page has no #root element');
// An invitation's link opens its own page, signed in or not (the console proper needs a session).
const invitation = /^\/console\/invitations\/([^/]+)\/?$/.exec(window.location.pathname);
createRoot(root).render(
  <MantineProvider theme={theme} cssVariablesResolver={cssVariables} defaultColorScheme="light">
    {invitation ? <InvitationPage token={decodeURIComponent(invitation[1]!)} /> : <App />}
  </MantineProvider>,
);
