// Descriptions as the server renders them (?markup=html: markdown as HTML from a fixed set of
// elements, src/serve/markup.c), rebuilt here from that same set: the HTML is parsed in an
// inert document (nothing runs, nothing loads), and only the listed elements are made again
// with h(); every other element gives its text, every attribute goes but an http(s) href.

import { h } from './dom.js';

const KEEP = new Set(['p', 'br', 'em', 'strong', 'del', 'code', 'pre', 'ul', 'ol', 'li',
  'blockquote', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a']);

function rebuild(node) {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const kids = [...node.childNodes].map(rebuild);
  const tag = node.localName;
  if (!KEEP.has(tag)) return kids;
  if (tag === 'a') {
    const href = node.getAttribute('href') || '';
    if (!/^https?:\/\//i.test(href)) return kids;
    return h('a', { href, rel: 'noopener noreferrer nofollow', target: '_blank' }, kids);
  }
  return h(tag, {}, kids);
}

// A description: its HTML rendering when the server sent one, else the text as it is.
// cls: the class of the wrapper (a div: the rendering holds paragraphs and lists).
export function rich(item, cls = 'desc') {
  if (!item || !item.description) return null;
  if (typeof item.description_html !== 'string') return h('p', { class: cls }, item.description);
  const doc = new DOMParser().parseFromString(item.description_html, 'text/html');
  return h('div', { class: `${cls} md` }, [...doc.body.childNodes].map(rebuild));
}

// A description as one run of text (for a summary line or a list item): the rendering's text.
export function plainOf(item) {
  if (!item || !item.description) return '';
  if (typeof item.description_html !== 'string') return item.description;
  const doc = new DOMParser().parseFromString(item.description_html, 'text/html');
  return doc.body.textContent.replace(/\s+/g, ' ').trim();
}
