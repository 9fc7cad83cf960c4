import {
  Alert,
  Button,
  Code,
  ColorInput,
  Group,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { CopyBlock } from '../../copy-field.js';
import { LoadingState } from '../../states.js';
import { SurfaceSwitches } from '../../surface-switches.js';
import { ChatTryIt } from '../../try-it-chat.js';
import { armWidgetPreview, useTryItKey } from '../../try-it-key.js';
import type { AgentTabProps } from './tab-props.js';
import { Section } from '../../section.js';

interface WidgetOptions {
  endpoint: string;
  title: string;
  greeting: string;
  accent: string;
  position: 'right' | 'left';
  open: boolean;
}

function escapeAttr(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** The `<script>` tag a site embeds: only the attributes that differ from the widget's defaults. */
export function scriptTag(origin: string, o: WidgetOptions): string {
  const attrs: [string, string][] = [['data-endpoint', o.endpoint.trim() || '/chat']];
  if (o.title.trim()) attrs.push(['data-title', o.title.trim()]);
  if (o.greeting.trim()) attrs.push(['data-greeting', o.greeting.trim()]);
  if (o.accent.trim()) attrs.push(['data-accent-color', o.accent.trim()]);
  if (o.position === 'left') attrs.push(['data-position', 'left']);
  if (o.open) attrs.push(['data-open', 'true']);
  return `<script src="${escapeAttr(origin)}/widget.js"\n  ${attrs.map(([k, v]) => `${k}="${escapeAttr(v)}"`).join('\n  ')}\n  async></script>`;
}

function previewSrc(agentId: string, o: WidgetOptions): string {
  const q = new URLSearchParams();
  if (o.title.trim()) q.set('title', o.title.trim());
  if (o.greeting.trim()) q.set('greeting', o.greeting.trim());
  if (o.accent.trim()) q.set('accent', o.accent.trim());
  if (o.position === 'left') q.set('position', 'left');
  q.set('open', 'true');
  return `/console/widget-preview/${encodeURIComponent(agentId)}?${q.toString()}`;
}

/** The chat widget: its switches, the script tag to embed (with its data- attributes), a live preview, and Try it on the chat. */
export default function WidgetTab({ agentId }: AgentTabProps) {
  const [o, setO] = useState<WidgetOptions>({
    endpoint: '/chat',
    title: '',
    greeting: '',
    accent: '',
    position: 'right',
    open: false,
  });
  const set = (patch: Partial<WidgetOptions>) => setO((prev) => ({ ...prev, ...patch }));
  const [shown] = useDebouncedValue(o, 400);
  const { current, problem, get } = useTryItKey(agentId);
  const [armed, setArmed] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  useEffect(() => {
    let live = true;
    armWidgetPreview(agentId, get).then(
      () => live && setArmed(agentId),
      () => undefined,
    );
    return () => {
      live = false;
    };
    // Again whenever another key is in use (a new one after a refusal).
  }, [agentId, get, current?.key]);
  const chatUrl = `${location.origin}/agents/${agentId}/chat`;
  return (
    <Stack>
      <SurfaceSwitches agentId={agentId} surface="WIDGET" label="Chat widget" />
      <Section id="embed-title" title="Embed">
        <Text size="sm">
          The widget holds no key: it talks to <Code>data-endpoint</Code>, a path of your own site whose proxy adds an
          agent key and forwards to the agent's chat (see docs: the Node proxy helper). Visitors need no login.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label="Proxy path (data-endpoint)"
            description="Your site's proxy for the chat"
            value={o.endpoint}
            onChange={(e) => set({ endpoint: e.currentTarget.value })}
          />
          <TextInput
            label="Title (data-title)"
            placeholder="Chat"
            value={o.title}
            onChange={(e) => set({ title: e.currentTarget.value })}
          />
          <TextInput
            label="Greeting (data-greeting)"
            value={o.greeting}
            onChange={(e) => set({ greeting: e.currentTarget.value })}
          />
          <ColorInput
            label="Accent colour (data-accent-color)"
            value={o.accent}
            onChange={(accent) => set({ accent })}
            format="hex"
            withEyeDropper={false}
          />
          <Select
            label="Position (data-position)"
            data={[
              { value: 'right', label: 'Bottom right' },
              { value: 'left', label: 'Bottom left' },
            ]}
            value={o.position}
            onChange={(v) => set({ position: v === 'left' ? 'left' : 'right' })}
            allowDeselect={false}
          />
          <Switch
            label="Open when the page loads (data-open)"
            checked={o.open}
            onChange={(e) => set({ open: e.currentTarget.checked })}
            mt="lg"
          />
        </SimpleGrid>
        <CopyBlock label="Script tag" value={scriptTag(location.origin, o)} />
        <CopyBlock
          label="Proxy target"
          value={chatUrl}
          description="Where your proxy forwards POST {message, conversationId} and GET /{conversationId}, adding X-Agent-Access-Key."
        />
      </Section>
      <Paper withBorder p="md" component="section" aria-labelledby="preview-title">
        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={3} size="h4" id="preview-title">
              Live preview
            </Title>
            <Button variant="default" size="xs" onClick={() => setReload((n) => n + 1)}>
              Reload preview
            </Button>
          </Group>
          <Text size="xs" c="dimmed">
            The widget as a site shows it, talking to this agent through the console's own proxy with your session's
            Try-it key (revoked when you sign out).
          </Text>
          {problem ? (
            <Alert variant="outline" color="red.9" role="alert" title="No preview">
              {problem}
            </Alert>
          ) : armed === agentId ? (
            <iframe
              key={`${reload}:${current?.expiresAt ?? ''}`}
              title="Chat widget preview"
              src={previewSrc(agentId, shown)}
              style={{ width: '100%', height: 560, border: '1px solid var(--mantine-color-gray-4)', borderRadius: 4 }}
            />
          ) : (
            <LoadingState label="Preparing the preview…" />
          )}
        </Stack>
      </Paper>
      <ChatTryIt agentId={agentId} />
    </Stack>
  );
}
