import { Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { headerOf, sendTryIt, type TryItResult } from './try-it-fetch.js';
import { useTryItKey, withKey } from './try-it-key.js';
import { KeyNote, TryItFrame, useSend } from './try-it-response.js';

/** Try it for the chat the widget uses: a message, the answer streamed as it arrives, the conversation kept for the next one. */
export function ChatTryIt({ agentId }: { agentId: string }) {
  const { current, problem, get } = useTryItKey(agentId);
  const [message, setMessage] = useState('');
  const [conversationId, setConversationId] = useState<string | null>(null);
  const { outcome, pending, failure, run } = useSend();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = message.trim();
    if (!text) return;
    void run(async (signal, progress) => {
      const answerOf = (r: TryItResult) =>
        r.events
          .filter((e) => e.event === 'delta')
          .map((e) => (e.json as { text?: string })?.text ?? '')
          .join('');
      const result = await withKey(get, (key) =>
        sendTryIt({
          url: `/agents/${encodeURIComponent(agentId)}/chat`,
          method: 'POST',
          headers: { 'x-agent-access-key': key, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify(conversationId ? { message: text, conversationId } : { message: text }),
          signal,
          onProgress: (partial) => {
            const start = partial.events.find((e) => e.event === 'start')?.json as
              { conversationId?: string } | undefined;
            if (start?.conversationId) setConversationId(start.conversationId);
            progress({
              result: partial,
              answer: answerOf(partial),
              runId: (partial.events.find((e) => e.event === 'start')?.json as { runId?: string })?.runId,
            });
          },
        }),
      );
      const start = result.events.find((e) => e.event === 'start')?.json as
        { conversationId?: string; runId?: string } | undefined;
      const done = result.events.find((e) => e.event === 'done')?.json as
        { output?: string; credits?: number } | undefined;
      const error = result.events.find((e) => e.event === 'error')?.json as { error?: string } | undefined;
      if (result.status === 404 && conversationId) setConversationId(null);
      return {
        result,
        ...(result.streamed
          ? { answer: done?.output ?? (error?.error ? `Error: ${error.error}` : answerOf(result)) }
          : {}),
        credits: done?.credits ?? null,
        runId: start?.runId ?? headerOf(result, 'x-run-id') ?? null,
      };
    });
    setMessage('');
  };
  return (
    <TryItFrame title="Try it" sent={{ outcome, pending, failure }}>
      <form onSubmit={submit} noValidate aria-label="Try the chat">
        <Stack gap="sm">
          <Textarea
            label="Message"
            autosize
            minRows={2}
            maxRows={8}
            value={message}
            onChange={(e) => setMessage(e.currentTarget.value)}
          />
          <Group>
            <Button type="submit" loading={pending} disabled={!message.trim()}>
              Send message
            </Button>
            <Button variant="default" onClick={() => setConversationId(null)} disabled={!conversationId || pending}>
              New conversation
            </Button>
            <Text size="xs" c="dimmed">
              {conversationId ? `Conversation ${conversationId}` : 'A new conversation'}
            </Text>
          </Group>
          <KeyNote current={current} problem={problem} />
        </Stack>
      </form>
    </TryItFrame>
  );
}
