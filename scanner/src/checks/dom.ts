import type { Element } from 'domhandler';

/**
 * Reading elements from the Derived index without cheerio wrappers: attribute lookups on `attribs` directly (names
 * are lower-case after parsing), which is what the hot checks need.
 */
export function attr(el: Element, name: string): string | undefined {
  return el.attribs[name];
}

/** Whether a space-separated attribute (rel) holds a token, case-insensitively. */
export function hasToken(el: Element, name: string, token: string): boolean {
  const value = el.attribs[name];
  return value !== undefined && value.toLowerCase().split(/\s+/).includes(token);
}

/** The first element whose `name` attribute equals `value` (case-insensitive), e.g. meta name="description". */
export function byName(elements: readonly Element[], attribute: string, value: string): Element | undefined {
  return elements.find((el) => (el.attribs[attribute] ?? '').toLowerCase() === value);
}

/** True when an ancestor is <head>. */
export function inHead(el: Element): boolean {
  for (let p = el.parent; p; p = p.parent) if (p.type === 'tag' && (p as Element).tagName === 'head') return true;
  return false;
}
