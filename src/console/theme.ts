import { createTheme, darken, type CSSVariablesResolver } from '@mantine/core';

// System fonts only: the console loads nothing from elsewhere.
export const theme = createTheme({
  primaryColor: 'indigo',
  // White on indigo 6 is 4.3:1, below WCAG AA for button labels; shade 8 is 5.6:1.
  primaryShade: { light: 8, dark: 8 },
  // No sliding or fading for people who asked their system for less motion.
  respectReducedMotion: true,
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, monospace',
});

/**
 * Raised to the 4.5:1 contrast WCAG AA asks of small text: dimmed text (Mantine's gray 6 on white;
 * gray 7 meets it), a field's error (red 6 is 3.3:1; red 9 is 5.6:1), and the primary colour's
 * light variant under the pointer (indigo 9 on indigo 2 is 4.1:1 — a hovered light button, the
 * active navigation link hovered; indigo 9 darkened by a fifth is 5.5:1).
 */
export const cssVariables: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': t.colors.gray[7]!,
    '--mantine-color-error': t.colors.red[9]!,
    '--mantine-color-indigo-light-color': darken(t.colors.indigo[9]!, 0.2),
  },
  dark: {},
});
