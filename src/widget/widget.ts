/**
 * The embeddable chat bubble (`GET /widget.js`): no framework, plain DOM in an open shadow root.
 *
 *   <script src="https://agents.example.com/widget.js" data-endpoint="/chat" async></script>
 *
 * It talks only to `data-endpoint` — the site's own proxy, which holds the API key — so nothing
 * secret is ever in the page: `POST {endpoint}` `{message, conversationId}` streams the answer as
 * server-sent events, `GET {endpoint}/{conversationId}` gives the history after a reload.
 */
import { EventParser } from './events.js';
import { renderMarkdown } from './markdown.js';
import { STYLES } from './styles.js';

/** A stream that shows no sign of life (not even a keep-alive comment) for this long has failed. */
const IDLE_MS = 45_000;
/** The longest message the service accepts. */
const MAX_MESSAGE = 16_000;
const HOST_TAG = 'agent-chat-widget';

interface Config {
  endpoint: string;
  title: string;
  greeting: string;
  accent: string | null;
  side: 'left' | 'right';
  open: boolean;
}

interface Saved {
  conversationId?: string;
  open?: boolean;
}

/** A failure the visitor reads, with what Retry does. */
class Problem extends Error {
  constructor(
    message: string,
    readonly status = 0,
  ) {
    super(message);
  }
}

function readConfig(script: HTMLScriptElement): Config | null {
  const d = script.dataset;
  const endpoint = d.endpoint?.trim();
  if (!endpoint) {
    console.error('[chat widget] data-endpoint is required: the path of your chat proxy, e.g. data-endpoint="/chat"');
    return null;
  }
  const accent = d.accentColor?.trim() ?? '';
  return {
    endpoint: new URL(endpoint, location.href).href.replace(/\/+$/, ''),
    title: d.title?.trim() || 'Chat',
    greeting: d.greeting?.trim() ?? '',
    accent: accent && CSS.supports('color', accent) ? accent : null,
    side: /left/i.test(d.position ?? '') ? 'left' : 'right',
    open: d.open === '' || d.open === 'true',
  };
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, attrs: Record<string, string> = {}): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** The visitor-facing sentence for a refused request. */
function problemOf(status: number, retryAfter: string | null, error: string | undefined): Problem {
  if (status === 429) {
    const s = Number(retryAfter);
    const when = !Number.isFinite(s) || s <= 0 ? ' in a moment' : s < 90 ? ` in ${Math.ceil(s)} seconds` : s < 5400 ? ` in ${Math.ceil(s / 60)} minutes` : ` in ${Math.round(s / 3600)} hours`;
    return new Problem(`The assistant is busy right now. Please try again${when}.`, status);
  }
  if (status === 400 || status === 413) return new Problem(`Your message could not be sent${error ? `: ${error}` : '.'}`, status);
  return new Problem('The assistant is not available right now. Please try again later.', status);
}

async function errorText(res: Response): Promise<string | undefined> {
  try {
    const body = (await res.json()) as { error?: unknown };
    return typeof body.error === 'string' ? body.error.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

class ChatWidget {
  private readonly root: ShadowRoot;
  private readonly bubble: HTMLButtonElement;
  private readonly panel: HTMLElement;
  private readonly log: HTMLElement;
  private readonly status: HTMLElement;
  private readonly statusText: HTMLElement;
  private readonly retry: HTMLButtonElement;
  private readonly input: HTMLTextAreaElement;
  private readonly send: HTMLButtonElement;
  private readonly storageKey: string;
  private conversationId: string | null;
  private busy = false;
  private restored = false;
  private retryAction: (() => void) | null = null;

  constructor(
    readonly host: HTMLElement,
    private readonly config: Config,
  ) {
    this.storageKey = `agent-chat:${config.endpoint}`;
    this.conversationId = this.load().conversationId ?? null;
    host.dataset.side = config.side;
    if (config.accent) host.style.setProperty('--accent', config.accent);
    this.root = host.attachShadow({ mode: 'open' });

    this.bubble = el('button', { type: 'button', className: 'bubble' }, { 'aria-label': 'Open chat', 'aria-haspopup': 'dialog', 'aria-expanded': 'false' });
    const icon = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    icon.setAttribute('viewBox', '0 0 24 24');
    icon.setAttribute('aria-hidden', 'true');
    const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    path.setAttribute('d', 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z');
    icon.append(path);
    this.bubble.append(icon);

    const titleId = 'agent-chat-title';
    const close = el('button', { type: 'button', className: 'close', textContent: '×' }, { 'aria-label': 'Close chat' });
    const header = el('header');
    header.append(el('h2', { id: titleId, textContent: config.title }), close);
    this.log = el('div', { className: 'log' }, { role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' });
    this.statusText = el('span');
    this.retry = el('button', { type: 'button', textContent: 'Retry' });
    this.status = el('div', { className: 'status', hidden: true }, { role: 'alert' });
    this.status.append(this.statusText, this.retry);
    this.input = el('textarea', { rows: 1, maxLength: MAX_MESSAGE, placeholder: 'Type a message…' }, { 'aria-label': 'Message' });
    this.send = el('button', { type: 'submit', className: 'send', textContent: 'Send' });
    const form = el('form');
    form.append(this.input, this.send);
    this.panel = el('section', { className: 'panel', hidden: true }, { role: 'dialog', 'aria-labelledby': titleId });
    this.panel.append(header, this.log, this.status, form);
    const style = el('style', { textContent: STYLES });
    this.root.append(style, this.bubble, this.panel);
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

    if (config.open || this.load().open) this.open(false);
  }

  private load(): Saved {
    try {
      const saved = JSON.parse(localStorage.getItem(this.storageKey) ?? '{}') as Saved;
      return saved && typeof saved === 'object' ? saved : {};
    } catch {
      return {};
    }
  }

  private save(change: Saved): void {
    try {
      const next = { ...this.load(), ...change };
      if (!next.conversationId) delete next.conversationId;
      localStorage.setItem(this.storageKey, JSON.stringify(next));
    } catch {
      // Storage refused (private mode, quota): the conversation simply does not survive a reload.
    }
  }

  open(focus = true): void {
    this.panel.hidden = false;
    this.bubble.hidden = true;
    this.bubble.setAttribute('aria-expanded', 'true');
    this.save({ open: true });
    if (focus) this.input.focus();
    if (!this.restored) void this.restore();
  }

  close(): void {
    this.panel.hidden = true;
    this.bubble.hidden = false;
    this.bubble.setAttribute('aria-expanded', 'false');
    this.save({ open: false });
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
      const res = await fetch(`${this.config.endpoint}/${encodeURIComponent(id)}`, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      if (res.status === 404) {
        this.forget();
        return;
      }
      if (!res.ok) throw new Problem('The earlier conversation could not be loaded.', res.status);
      const { messages } = (await res.json()) as { messages?: { role?: unknown; content?: unknown }[] };
      for (const m of Array.isArray(messages) ? messages : []) {
        if ((m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string') this.addMessage(m.role, m.content);
      }
    } catch (err) {
      this.restored = false;
      this.showProblem(err instanceof Problem ? err.message : 'The earlier conversation could not be loaded. Check your connection.', () => void this.restore());
    } finally {
      this.setBusy(false);
    }
  }

  private forget(): void {
    this.conversationId = null;
    this.save({ conversationId: undefined });
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
      const reader = res.body.getReader();
      const parser = new EventParser();
      let finished = false;
      while (!finished) {
        const { value, done } = await reader.read();
        if (done) break;
        alive();
        for (const ev of parser.push(value)) {
          const data = JSON.parse(ev.data) as { conversationId?: string; text?: string; output?: unknown; error?: string };
          if (ev.event === 'start' && typeof data.conversationId === 'string') {
            this.conversationId = data.conversationId;
            this.save({ conversationId: data.conversationId });
          } else if (ev.event === 'delta' && typeof data.text === 'string') {
            text += data.text;
            frame ||= requestAnimationFrame(paint);
          } else if (ev.event === 'done') {
            if (typeof data.output === 'string') text = data.output;
            finished = true;
          } else if (ev.event === 'error') {
            throw new Problem('The answer could not be completed. Please try again.');
          }
        }
      }
      if (!finished) throw new Problem('The answer was cut off. Please try again.');
      cancelAnimationFrame(frame);
      paint();
    } catch (err) {
      cancelAnimationFrame(frame);
      if (!text) answer.remove();
      else paint();
      const problem = err instanceof Problem ? err : new Problem('Could not reach the assistant. Check your connection and try again.');
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
  const script = (document.currentScript as HTMLScriptElement | null) ?? document.querySelector<HTMLScriptElement>('script[data-endpoint][src*="widget.js"]');
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
