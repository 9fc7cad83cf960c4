/**
 * The embeddable chat bubble (`GET /widget.js`): no framework, plain DOM in an open shadow root.
 *
 *   <script src="https://agents.example.com/widget.js" data-endpoint="/chat" async></script>
 *
 * It talks only to `data-endpoint` — the site's own proxy, which holds the API key — so nothing
 * secret is ever in the page: `POST {endpoint}` `{message, conversationId}` streams the answer as
 * server-sent events, `GET {endpoint}/{conversationId}` gives the history after a reload.
 */
import { readAnswer } from './answer-stream.js';
import { type Config, readConfig } from './config.js';
import { renderMarkdown } from './markdown.js';
import { errorText, Problem, problemOf } from './problems.js';
import { SavedState } from './saved.js';
import { buildView, el } from './view.js';

/** A stream that shows no sign of life (not even a keep-alive comment) for this long has failed. */
const IDLE_MS = 45_000;
const HOST_TAG = 'agent-chat-widget';

class ChatWidget {
  private readonly bubble: HTMLButtonElement;
  private readonly panel: HTMLElement;
  private readonly log: HTMLElement;
  private readonly status: HTMLElement;
  private readonly statusText: HTMLElement;
  private readonly retry: HTMLButtonElement;
  private readonly input: HTMLTextAreaElement;
  private readonly send: HTMLButtonElement;
  private readonly saved: SavedState;
  private conversationId: string | null;
  private busy = false;
  private restored = false;
  private retryAction: (() => void) | null = null;

  constructor(
    readonly host: HTMLElement,
    private readonly config: Config,
  ) {
    this.saved = new SavedState(config.endpoint);
    this.conversationId = this.saved.load().conversationId ?? null;
    host.dataset.side = config.side;
    if (config.accent) host.style.setProperty('--accent', config.accent);
    const { close, form, ...view } = buildView(host.attachShadow({ mode: 'open' }), config);
    ({
      bubble: this.bubble,
      panel: this.panel,
      log: this.log,
      status: this.status,
      statusText: this.statusText,
    } = view);
    ({ retry: this.retry, input: this.input, send: this.send } = view);
    if (config.greeting) this.addMessage('assistant', config.greeting);

    this.bubble.addEventListener('click', () => this.open());
    close.addEventListener('click', () => this.close());
    this.panel.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.close();
      }
    });
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.submit();
      }
    });
    this.input.addEventListener('input', () => this.fitInput());
    this.retry.addEventListener('click', () => {
      const action = this.retryAction;
      this.hideProblem();
      action?.();
    });

    if (config.open || this.saved.load().open) this.open(false);
  }

  open(focus = true): void {
    this.panel.hidden = false;
    this.bubble.hidden = true;
    this.bubble.setAttribute('aria-expanded', 'true');
    this.saved.save({ open: true });
    if (focus) this.input.focus();
    if (!this.restored) void this.restore();
  }

  close(): void {
    this.panel.hidden = true;
    this.bubble.hidden = false;
    this.bubble.setAttribute('aria-expanded', 'false');
    this.saved.save({ open: false });
    this.bubble.focus();
  }

  private fitInput(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight + 2, 120)}px`;
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.send.disabled = busy;
    this.log.setAttribute('aria-busy', String(busy));
  }

  private showProblem(message: string, retry: () => void): void {
    this.statusText.textContent = message;
    this.retryAction = retry;
    this.status.hidden = false;
  }

  private hideProblem(): void {
    this.status.hidden = true;
    this.retryAction = null;
  }

  private scrollDown(): void {
    this.log.scrollTop = this.log.scrollHeight;
  }

  private addMessage(role: 'user' | 'assistant', text: string): HTMLElement {
    const node = el('div', { className: `msg ${role}` });
    if (role === 'user') node.textContent = text;
    else node.append(renderMarkdown(document, text, location.href));
    this.log.append(node);
    this.scrollDown();
    return node;
  }

  /** Shows the stored conversation again after a reload. */
  private async restore(): Promise<void> {
    this.restored = true;
    const id = this.conversationId;
    if (!id) return;
    this.setBusy(true);
    try {
      const res = await fetch(`${this.config.endpoint}/${encodeURIComponent(id)}`, {
        headers: { accept: 'application/json' },
        credentials: 'same-origin',
      });
      if (res.status === 404) {
        this.forget();
        return;
      }
      if (!res.ok) throw new Problem('The earlier conversation could not be loaded.', res.status);
      const { messages } = (await res.json()) as { messages?: { role?: unknown; content?: unknown }[] };
      for (const m of Array.isArray(messages) ? messages : []) {
        if ((m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string')
          this.addMessage(m.role, m.content);
      }
    } catch (err) {
      this.restored = false;
      this.showProblem(
        err instanceof Problem ? err.message : 'The earlier conversation could not be loaded. Check your connection.',
        () => void this.restore(),
      );
    } finally {
      this.setBusy(false);
    }
  }

  private forget(): void {
    this.conversationId = null;
    this.saved.save({ conversationId: undefined });
  }

  private submit(): void {
    const message = this.input.value.trim();
    if (!message || this.busy) return;
    this.input.value = '';
    this.fitInput();
    this.hideProblem();
    this.addMessage('user', message);
    void this.ask(message);
  }

  /** Sends one message and streams the answer into a new assistant bubble. */
  private async ask(message: string, retried = false): Promise<void> {
    this.setBusy(true);
    const answer = el('div', { className: 'msg assistant typing' });
    this.log.append(answer);
    this.scrollDown();
    const abort = new AbortController();
    let idle = setTimeout(() => abort.abort(), IDLE_MS);
    const alive = () => {
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(), IDLE_MS);
    };
    let text = '';
    let frame = 0;
    const paint = () => {
      frame = 0;
      answer.classList.remove('typing');
      answer.replaceChildren(renderMarkdown(document, text, location.href));
      this.scrollDown();
    };
    try {
      const res = await fetch(this.config.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(this.conversationId ? { message, conversationId: this.conversationId } : { message }),
        credentials: 'same-origin',
        signal: abort.signal,
      });
      if (res.status === 404 && this.conversationId && !retried) {
        // The conversation is gone (expired, or the visitor changed): start a new one.
        answer.remove();
        this.forget();
        return await this.ask(message, true);
      }
      if (!res.ok) throw problemOf(res.status, res.headers.get('retry-after'), await errorText(res));
      if (!res.body) throw new Problem('The answer could not be read.');
      await readAnswer(res.body, {
        alive,
        conversation: (id) => {
          this.conversationId = id;
          this.saved.save({ conversationId: id });
        },
        delta: (more) => {
          text += more;
          frame ||= requestAnimationFrame(paint);
        },
        done: (output) => {
          if (output !== undefined) text = output;
        },
      });
      cancelAnimationFrame(frame);
      paint();
    } catch (err) {
      cancelAnimationFrame(frame);
      if (!text) answer.remove();
      else paint();
      const problem =
        err instanceof Problem
          ? err
          : new Problem('Could not reach the assistant. Check your connection and try again.');
      this.showProblem(problem.message, () => {
        answer.remove();
        void this.ask(message);
      });
    } finally {
      clearTimeout(idle);
      this.setBusy(false);
    }
  }
}

function mount(): void {
  const script =
    (document.currentScript as HTMLScriptElement | null) ??
    document.querySelector<HTMLScriptElement>('script[data-endpoint][src*="widget.js"]');
  if (!script || document.querySelector(HOST_TAG)) return;
  const config = readConfig(script);
  if (!config) return;
  const start = () => {
    const host = document.createElement(HOST_TAG);
    document.body.append(host);
    new ChatWidget(host, config);
  };
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start, { once: true });
}

mount();
