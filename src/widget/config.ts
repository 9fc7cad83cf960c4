/** What the page's `<script data-…>` attributes ask of the widget. */
export interface Config {
  endpoint: string;
  title: string;
  greeting: string;
  accent: string | null;
  side: 'left' | 'right';
  open: boolean;
}

/** The widget's settings from its script tag, or null (logged) when `data-endpoint` is missing. */
export function readConfig(script: HTMLScriptElement): Config | null {
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
