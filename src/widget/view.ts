import type { Config } from './config.js';
import { STYLES } from './styles.js';

/** The longest message the service accepts. */
const MAX_MESSAGE = 16_000;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  attrs: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** The widget's elements, wired by ChatWidget. */
export interface View {
  bubble: HTMLButtonElement;
  panel: HTMLElement;
  close: HTMLButtonElement;
  log: HTMLElement;
  status: HTMLElement;
  statusText: HTMLElement;
  retry: HTMLButtonElement;
  form: HTMLFormElement;
  input: HTMLTextAreaElement;
  send: HTMLButtonElement;
}

/** Builds the bubble and the (hidden) chat panel into `root`. */
export function buildView(root: ShadowRoot, config: Config): View {
  const bubble = el(
    'button',
    { type: 'button', className: 'bubble' },
    { 'aria-label': 'Open chat', 'aria-haspopup': 'dialog', 'aria-expanded': 'false' },
  );
  const icon = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  icon.setAttribute('viewBox', '0 0 24 24');
  icon.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z');
  icon.append(path);
  bubble.append(icon);

  const titleId = 'agent-chat-title';
  const close = el('button', { type: 'button', className: 'close', textContent: '×' }, { 'aria-label': 'Close chat' });
  const header = el('header');
  header.append(el('h2', { id: titleId, textContent: config.title }), close);
  const log = el('div', { className: 'log' }, { role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' });
  const statusText = el('span');
  const retry = el('button', { type: 'button', textContent: 'Retry' });
  const status = el('div', { className: 'status', hidden: true }, { role: 'alert' });
  status.append(statusText, retry);
  const input = el(
    'textarea',
    { rows: 1, maxLength: MAX_MESSAGE, placeholder: 'Type a message…' },
    { 'aria-label': 'Message' },
  );
  const send = el('button', { type: 'submit', className: 'send', textContent: 'Send' });
  const form = el('form');
  form.append(input, send);
  const panel = el('section', { className: 'panel', hidden: true }, { role: 'dialog', 'aria-labelledby': titleId });
  panel.append(header, log, status, form);
  root.append(el('style', { textContent: STYLES }), bubble, panel);
  return { bubble, panel, close, log, status, statusText, retry, form, input, send };
}
