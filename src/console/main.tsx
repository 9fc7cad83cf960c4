import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { cssVariables, theme } from './theme.js';

const root = document.getElementById('root');
if (!root) throw new Error('The console page has no #root element');
createRoot(root).render(
  <MantineProvider theme={theme} cssVariablesResolver={cssVariables} defaultColorScheme="light">
    <App />
  </MantineProvider>,
);
