/**
 * The safe Markdown subset the widget renders model output with: paragraphs and line breaks,
 * bullet and numbered lists, fenced and inline code, **strong**, *emphasis* (or _emphasis_), and links to http(s)
 * and mailto addresses. Everything is built with createElement and text nodes, never from HTML:
 * whatever the model writes — `<script>`, `<img onerror=…>`, a `javascript:` link — ends up as
 * visible text, because no string is ever parsed as markup.
 */

/** Inline spans, in the order the alternatives are tried at each position. */
const INLINE =
  /(`+)([^`]+?)\1|\*\*([^*]+?)\*\*|\*([^*\s][^*]*?)\*|(^|\s)_([^_\s][^_]*?)_(?=$|[\s.,;:!?)])|\[([^\]\n]{1,500})\]\(([^()\s]{1,2000})\)|(https?:\/\/[^\s<>()]{1,2000}[^\s<>().,;:!?'"])/g;

/** The address a link may point at, or null when its scheme is not http, https or mailto. */
export function safeHref(raw: string, base: string): string | null {
  try {
    const url = new URL(raw, base);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.href : null;
  } catch {
    return null;
  }
}

function link(doc: Document, href: string, label: Node[]): HTMLAnchorElement {
  const a = doc.createElement('a');
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer nofollow';
  a.append(...label);
  return a;
}

function wrap(doc: Document, tag: string, children: Node[]): HTMLElement {
  const el = doc.createElement(tag);
  el.append(...children);
  return el;
}

/** The inline content of one line or paragraph. */
export function inline(doc: Document, text: string, base: string): Node[] {
  const out: Node[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index;
    if (at > last) out.push(doc.createTextNode(text.slice(last, at)));
    last = at + m[0].length;
    if (m[2] !== undefined) out.push(wrap(doc, 'code', [doc.createTextNode(m[2])]));
    else if (m[3] !== undefined) out.push(wrap(doc, 'strong', inline(doc, m[3], base)));
    else if (m[4] !== undefined) out.push(wrap(doc, 'em', inline(doc, m[4], base)));
    else if (m[6] !== undefined) {
      // `_emphasis_` only between spaces or punctuation, so snake_case and __dunder__ stay text.
      if (m[5]) out.push(doc.createTextNode(m[5]));
      out.push(wrap(doc, 'em', inline(doc, m[6], base)));
    } else if (m[7] !== undefined) {
      const href = safeHref(m[8]!, base);
      out.push(href ? link(doc, href, inline(doc, m[7], base)) : doc.createTextNode(m[0]));
    } else {
      const href = safeHref(m[9]!, base);
      out.push(href ? link(doc, href, [doc.createTextNode(m[9]!)]) : doc.createTextNode(m[0]));
    }
  }
  if (last < text.length) out.push(doc.createTextNode(text.slice(last)));
  return out;
}

const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/;
const FENCE = /^\s{0,3}```/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*)$/;

/**
 * Renders `source` into a fragment. A fence still open at the end (the answer is streaming) shows
 * what has arrived as code.
 */
export function renderMarkdown(doc: Document, source: string, base: string): DocumentFragment {
  const frag = doc.createDocumentFragment();
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  let para: string[] = [];
  let list: HTMLElement | null = null;

  const flushPara = () => {
    if (!para.length) return;
    const p = doc.createElement('p');
    para.forEach((line, i) => {
      if (i) p.append(doc.createElement('br'));
      p.append(...inline(doc, line, base));
    });
    frag.append(p);
    para = [];
  };
  const closeList = () => {
    list = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) {
      flushPara();
      closeList();
      const code: string[] = [];
      for (i++; i < lines.length && !FENCE.test(lines[i]!); i++) code.push(lines[i]!);
      frag.append(wrap(doc, 'pre', [wrap(doc, 'code', [doc.createTextNode(code.join('\n'))])]));
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (bullet || numbered) {
      flushPara();
      const tag = bullet ? 'UL' : 'OL';
      if (!list || list.tagName !== tag) {
        list = doc.createElement(tag);
        frag.append(list);
      }
      list.append(wrap(doc, 'li', inline(doc, (bullet ?? numbered)![1]!, base)));
      continue;
    }
    closeList();
    if (!line.trim()) {
      flushPara();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flushPara();
      frag.append(wrap(doc, 'p', [wrap(doc, 'strong', inline(doc, heading[1]!, base))]));
      continue;
    }
    para.push(line);
  }
  flushPara();
  return frag;
}
