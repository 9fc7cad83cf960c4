import type { ModelListing, ResolvedModel } from '../../domain/models/language-model.ports.js';
import { urlPasswords, withoutCredentials } from '../credentials.js';

// A provider's model list, read with a plain GET: OpenAI and compatible servers (Ollama, vLLM,
// LM Studio, proxies) answer `GET {baseUrl}/models`, Anthropic `GET /v1/models`. Both return
// `{ data: [{ id, ... }] }`. Anything else than such a list is "cannot list", with the reason.

/** How long a model list may take: it runs inside configureModel, which an admin waits on. */
export const LIST_TIMEOUT_MS = 5_000;
/** Largest list body read (OpenRouter's full list is about 1 MB). */
export const MAX_LIST_BYTES = 4 * 1024 * 1024;
/** Most of the provider's error text quoted in a reason. */
const MAX_REASON_TEXT = 300;
/** Anthropic's list is paged; one page of the largest size covers every model it offers. */
const ANTHROPIC_PAGE = 1000;
const ANTHROPIC_VERSION = '2023-06-01';

const DEFAULT_BASE_URL = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com/v1' } as const;

/** Statuses meaning "this server has no model list" rather than "the list failed". */
const NO_LIST_STATUSES = new Set([404, 405, 501]);

class ListUnavailable extends Error {}

/** The provider's model names, or why they could not be read. Never throws; the key never appears in a reason. */
export async function listProviderModels(m: ResolvedModel, timeoutMs = LIST_TIMEOUT_MS): Promise<ModelListing> {
  const scrub = (text: string) => withoutCredentials(text, [m.apiKey, ...urlPasswords(m.baseUrl)]);
  try {
    const request = listRequest(m);
    const res = await fetch(request.url, {
      headers: request.headers,
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await boundedText(res);
    if (!res.ok) return { listed: false, reason: scrub(statusReason(res.status, body)) };
    return { listed: true, models: modelIds(body) };
  } catch (err) {
    return { listed: false, reason: scrub(failureReason(err, timeoutMs)) };
  }
}

function listRequest(m: ResolvedModel): { url: string; headers: Record<string, string> } {
  const base = (
    m.baseUrl ?? (m.provider === 'anthropic' ? DEFAULT_BASE_URL.anthropic : DEFAULT_BASE_URL.openai)
  ).replace(/\/+$/, '');
  const url = new URL(`${base}/models`);
  // fetch refuses such a URL with a message quoting it, credentials included: say it in our words.
  if (url.username || url.password)
    throw new ListUnavailable(
      "the base URL holds credentials, which requests cannot carry (store the key as the model's API key secret)",
    );
  if (m.provider === 'anthropic') {
    url.searchParams.set('limit', String(ANTHROPIC_PAGE));
    return {
      url: url.href,
      headers: { 'x-api-key': m.apiKey ?? '', 'anthropic-version': ANTHROPIC_VERSION, accept: 'application/json' },
    };
  }
  return {
    url: url.href,
    headers: m.apiKey
      ? { authorization: `Bearer ${m.apiKey}`, accept: 'application/json' }
      : { accept: 'application/json' },
  };
}

/** The body as text, refusing one larger than MAX_LIST_BYTES without reading it all. */
async function boundedText(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_LIST_BYTES) {
      await reader.cancel();
      throw new ListUnavailable(`the model list is larger than ${MAX_LIST_BYTES / 1024 / 1024} MB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function statusReason(status: number, body: string): string {
  if (NO_LIST_STATUSES.has(status)) return `the provider has no model list (GET /models answered HTTP ${status})`;
  const text = providerMessage(body);
  return `the provider's model list answered HTTP ${status}${text ? `: ${text}` : ''}`;
}

/** The provider's own error message (OpenAI `{error:{message}}`, Anthropic `{error:{message}}`), else the start of the body. */
function providerMessage(body: string): string {
  let text = body.trim();
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const candidate = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof candidate === 'string') text = candidate;
  } catch {
    // Not JSON (an HTML error page): the start of the text says enough.
  }
  text = text.replace(/\s+/g, ' ');
  return text.length > MAX_REASON_TEXT ? `${text.slice(0, MAX_REASON_TEXT)}…` : text;
}

function modelIds(body: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ListUnavailable('the model list is not JSON');
  }
  const data = (parsed as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new ListUnavailable('the model list has no `data` array');
  const ids = data
    .map((d: unknown) => (d && typeof d === 'object' && 'id' in d && typeof d.id === 'string' ? d.id : null))
    .filter((id): id is string => id !== null);
  if (!ids.length) throw new ListUnavailable('the model list is empty');
  return ids;
}

function failureReason(err: unknown, timeoutMs: number): string {
  if (err instanceof ListUnavailable) return err.message;
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
    return `the provider's model list did not answer within ${timeoutMs / 1000} s`;
  const code = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof code === 'string') return `the provider could not be reached (${code})`;
  return `the provider's model list could not be read (${err instanceof Error ? err.message : String(err)})`;
}
