import { Badge, Box, Code, Text } from '@mantine/core';
import type { ReactNode } from 'react';

// How the activity log's values are shown: the service stores every redaction as the marker
// `[redacted]` (credential headers, and output the agent's guardrails redact), and the console
// shows each occurrence as a visible "redacted" badge rather than as text that looks like data.

/** The text the service writes in place of a redacted value. */
export const REDACTED = '[redacted]';

/** A text with each redaction marker shown as a badge. */
export function RedactedText({ text }: { text: string }) {
  const parts = text.split(REDACTED);
  const out: ReactNode[] = [];
  parts.forEach((part, i) => {
    if (i > 0)
      out.push(
        <Badge
          key={`r${i}`}
          component="span"
          variant="outline"
          color="gray.8"
          size="xs"
          radius="sm"
          mx={2}
          style={{ verticalAlign: 'baseline', textTransform: 'none' }}
        >
          redacted
        </Badge>,
      );
    if (part) out.push(part);
  });
  return <>{out}</>;
}

/** A JSON value (or text) as a scrollable, keyboard-reachable block; redactions as badges. */
export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  if (value === null || value === undefined)
    return (
      <Text size="sm" c="dimmed">
        None
      </Text>
    );
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (
    // A region of its own: it scrolls, so it must take the focus (keyboard users scroll it too).
    <Box role="region" aria-label={label} tabIndex={0} style={{ maxHeight: 320, overflow: 'auto', borderRadius: 4 }}>
      <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        <RedactedText text={text} />
      </Code>
    </Box>
  );
}

/** Credits as the console writes them (up to 6 decimals, the precision the service stores). */
export function formatCredits(credits: number): string {
  return credits.toLocaleString('en', { maximumFractionDigits: 6 });
}

/** An instant as `YYYY-MM-DD HH:MM:SS` UTC (the date filters and usage days are UTC days). */
export function utcTime(iso: string): string {
  return iso.replace('T', ' ').slice(0, 19);
}

/** The colour of a status badge: success, client error, server error, none (a run no request waited for). */
export function statusColor(status: number | null): string {
  if (status === null) return 'gray.7';
  if (status < 400) return 'teal.9';
  if (status < 500) return '#9c3d00';
  return 'red.9';
}

/** Today as a UTC day, `YYYY-MM-DD`. */
export function utcToday(): string {
  return new Date().toISOString().slice(0, 10);
}
