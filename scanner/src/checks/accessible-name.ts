import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import type { PageProbe } from '../snapshot/snapshot.js';
import type { Derived } from './derived.js';

/**
 * A static approximation of the accessible name (accname 1.2) for form controls and buttons, shared by the
 * accessibility and agent-readiness checks: agents find controls by the same names screen readers announce.
 */

/** Input types named otherwise than by a label (hidden has no name at all). */
const NOT_LABELLED = new Set(['hidden', 'submit', 'reset', 'button', 'image']);
const BUTTON_INPUTS = new Set(['submit', 'reset', 'button', 'image']);

/** Controls that take user data and so need a label, in document order. */
export function labellable(derived: Derived, page: PageProbe): Element[] {
  return derived.index(page).all.filter((el) =>
    el.tagName === 'input' ? !NOT_LABELLED.has((el.attribs['type'] ?? '').toLowerCase()) : el.tagName === 'select' || el.tagName === 'textarea',
  );
}

/** Buttons: <button>, button-like inputs, role="button", in document order. */
export function buttons(derived: Derived, page: PageProbe): Element[] {
  return derived.index(page).all.filter(
    (el) => el.tagName === 'button' || (el.tagName === 'input' && BUTTON_INPUTS.has((el.attribs['type'] ?? '').toLowerCase())) || el.attribs['role'] === 'button',
  );
}

interface NameIndex {
  /** ids that a non-empty <label for> names. */
  readonly labelled: ReadonlySet<string>;
  /** Elements by id, for aria-labelledby (their text is read only when a control points at them). */
  readonly byId: ReadonlyMap<string, Element>;
}

// One index per parsed document (the Derived cache hands every check the same CheerioAPI): looking each control's
// label up with a document-wide selector made a page with hundreds of fields quadratic.
const indexes = new WeakMap<CheerioAPI, NameIndex>();

function indexOf($: CheerioAPI): NameIndex {
  let index = indexes.get($);
  if (!index) {
    const labelled = new Set<string>();
    for (const el of $('label[for]').toArray()) if ($(el).text().trim() !== '') labelled.add($(el).attr('for') ?? '');
    const byId = new Map<string, Element>();
    for (const el of $('[id]').toArray()) if (!byId.has(el.attribs['id'] ?? '')) byId.set(el.attribs['id'] ?? '', el);
    index = { labelled, byId };
    indexes.set($, index);
  }
  return index;
}

function ariaName($: CheerioAPI, el: Element): boolean {
  if ((el.attribs['aria-label'] ?? '').trim()) return true;
  const ids = (el.attribs['aria-labelledby'] ?? '').split(/\s+/).filter(Boolean);
  if (ids.length === 0) return false;
  const { byId } = indexOf($);
  return ids.some((id) => {
    const target = byId.get(id);
    return target !== undefined && $(target).text().trim() !== '';
  });
}

export function controlHasLabel($: CheerioAPI, el: Element): boolean {
  if (ariaName($, el)) return true;
  const id = el.attribs['id'];
  if (id && indexOf($).labelled.has(id)) return true;
  for (let p = el.parent; p; p = p.parent) {
    if (p.type === 'tag' && (p as Element).tagName === 'label') {
      if ($(p).text().trim() !== '') return true;
      break;
    }
  }
  // title and placeholder are last-resort names in accname; axe accepts title, we accept both as a weak name.
  return (el.attribs['title'] ?? '').trim() !== '' || (el.attribs['placeholder'] ?? '').trim() !== '';
}

export function buttonHasName($: CheerioAPI, el: Element): boolean {
  if (ariaName($, el)) return true;
  const node = $(el);
  if (el.tagName === 'input') {
    const type = (node.attr('type') ?? '').toLowerCase();
    if (type === 'image') return (node.attr('alt') ?? '').trim() !== '';
    // submit and reset have a default label from the browser when value is absent.
    return (node.attr('value') ?? '').trim() !== '' || type === 'submit' || type === 'reset';
  }
  if (node.text().trim() !== '') return true;
  if (node.find('img[alt]').toArray().some((img) => ($(img).attr('alt') ?? '').trim() !== '')) return true;
  return (node.attr('title') ?? '').trim() !== '';
}

export function describe($: CheerioAPI, el: Element): string {
  return $.html(el).replace(/\s+/g, ' ').slice(0, 100);
}
