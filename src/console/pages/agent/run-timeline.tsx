import { Box, Button, Code, CopyButton, Group, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { JsonBlock } from '../../activity-view.js';
import { readFragment, type FragmentOf } from 'gql.tada';
import { graphql, type ResultOf } from '../../graphql.js';
import { droppedNote, formatMs, spanFacts, timelineRows, type TimelineRow as Row } from './run-timeline-rows.js';

// The run timeline in the Activity drawer (issue 53): the spans the entry keeps, as a waterfall.
// Each span is a list item whose text says everything (name, duration, tokens, verdicts, errors);
// the bar only places it in time and is hidden from assistive technology.

export const RunTimelineFields = graphql(`
  fragment RunTimelineFields on ActivityEntry {
    traceId
    spansDropped
    spans {
      spanId
      parentSpanId
      name
      kind
      offsetMs
      durationMs
      attributes
      error {
        code
        message
      }
      input
      output
    }
  }
`);

type Span = ResultOf<typeof RunTimelineFields>['spans'][number];
type TimelineRow = Row<Span>;

/** The bar's colour: failures red, model calls blue, tools violet, the rest gray. */
function barColor(span: Span): string {
  if (span.error) return 'var(--mantine-color-red-7)';
  if (span.name.startsWith('chat')) return 'var(--mantine-color-blue-6)';
  if (span.name.startsWith('execute_tool')) return 'var(--mantine-color-violet-6)';
  if (span.name.startsWith('invoke_agent')) return 'var(--mantine-color-teal-7)';
  return 'var(--mantine-color-gray-6)';
}

/** A tool's input and output, collapsed until asked for (they can be long). */
function ToolDetail({ span, n }: { span: Span; n: number }) {
  const [open, setOpen] = useState(false);
  const id = `span-detail-${n}`;
  return (
    <Stack gap={4}>
      <Group>
        <Button
          variant="default"
          size="compact-xs"
          onClick={() => setOpen(!open)}
          aria-expanded={open}
          aria-controls={id}
          aria-label={`${open ? 'Hide input and output' : 'Input and output'} of ${span.name}`}
        >
          {open ? 'Hide input and output' : 'Input and output'}
        </Button>
      </Group>
      {open ? (
        <Stack gap={4} id={id}>
          <Text size="xs" fw={600}>
            Input
          </Text>
          <JsonBlock value={span.input} label={`Input of ${span.name} (span ${n + 1})`} />
          <Text size="xs" fw={600}>
            Output
          </Text>
          <JsonBlock value={span.output} label={`Output of ${span.name} (span ${n + 1})`} />
        </Stack>
      ) : null}
    </Stack>
  );
}

function SpanItem({ row, n }: { row: TimelineRow; n: number }) {
  const { span, depth } = row;
  const facts = spanFacts(span);
  const isTool = span.name.startsWith('execute_tool') || span.input != null || span.output != null;
  return (
    <Box
      component="li"
      data-span={span.name}
      py={6}
      style={{ borderTop: '1px solid var(--mantine-color-gray-3)', listStyle: 'none' }}
    >
      <Stack gap={2} pl={Math.min(depth, 6) * 12}>
        <Group justify="space-between" gap="xs" wrap="nowrap" align="baseline">
          <Text
            size="sm"
            ff="monospace"
            fw={600}
            c={span.error ? 'red.9' : undefined}
            style={{ wordBreak: 'break-word' }}
          >
            {span.name}
          </Text>
          <Text size="sm" style={{ flexShrink: 0 }}>
            {formatMs(span.durationMs)}
          </Text>
        </Group>
        {facts.length ? (
          <Text size="xs" c="gray.8" data-testid="span-facts">
            {facts.join(' · ')}
          </Text>
        ) : null}
        {span.error ? (
          <Text size="xs" c="red.9" style={{ wordBreak: 'break-word' }}>
            Failed: <Code c="red.9">{span.error.code}</Code> {span.error.message}
          </Text>
        ) : null}
        {isTool ? <ToolDetail span={span} n={n} /> : null}
      </Stack>
      <Box
        aria-hidden
        mt={4}
        h={8}
        bg="gray.1"
        style={{ position: 'relative', borderRadius: 2 }}
        title={`starts at +${formatMs(span.offsetMs)}`}
      >
        <Box
          h={8}
          style={{
            position: 'absolute',
            left: `${row.left}%`,
            width: `${row.width}%`,
            background: barColor(span),
            borderRadius: 2,
          }}
        />
      </Box>
    </Box>
  );
}

/**
 * The "Timeline" section of an entry: the trace id (to copy into a collector's search) and the
 * spans as a waterfall. Nothing when the entry keeps no spans (older entries, protocol traffic).
 */
export function RunTimeline({ entry }: { entry: FragmentOf<typeof RunTimelineFields> }) {
  const { traceId, spans, spansDropped } = readFragment(RunTimelineFields, entry);
  if (!spans.length) return null;
  const rows = timelineRows(spans);
  const dropped = droppedNote(spansDropped);
  return (
    <Stack gap={4} component="section" aria-labelledby="run-timeline-title">
      <Title order={4} id="run-timeline-title">
        Timeline
      </Title>
      {traceId ? (
        <Group gap="xs" wrap="nowrap">
          <Text size="sm" fw={600} style={{ flexShrink: 0 }}>
            Trace id
          </Text>
          <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
            {traceId}
          </Text>
          <CopyButton value={traceId}>
            {({ copied, copy }) => (
              <Button
                variant="subtle"
                size="compact-xs"
                onClick={copy}
                aria-label="Copy the trace id"
                style={{ flexShrink: 0 }}
              >
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
      ) : null}
      <Box component="ol" aria-label="Run timeline" p={0} m={0}>
        {rows.map((row, n) => (
          <SpanItem key={row.span.spanId} row={row} n={n} />
        ))}
      </Box>
      {dropped ? (
        <Text size="sm" c="gray.8" data-testid="spans-dropped">
          {dropped}
        </Text>
      ) : null}
    </Stack>
  );
}
