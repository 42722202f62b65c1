import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import type { PageProbe } from '../snapshot/snapshot.js';
import type { Derived } from './derived.js';

/**
 * A static approximation of the accessible name (accname 1.2) for form controls and buttons, shared by the
 * accessibility and agent-readiness checks: agents find controls by the same names screen readers announce.
 */

/** Input types named otherwise than by a label (hidden has no name at all). */
const NOT_LABELLED = new Set(['hidden', 'submit', 'reset', 'button', 'image']);
const BUTTON_INPUTS = new Set(['submit', 'reset', 'button', 'image']);

// Both lists are asked for by several checks per assessment: filtered once per parsed document (the index object is
// the document's), not once per check over every element of the page.
const labellables = new WeakMap<object, Element[]>();
const buttonLists = new WeakMap<object, Element[]>();

/** Controls that take user data and so need a label, in document order. */
export function labellable(derived: Derived, page: PageProbe): Element[] {
  const index = derived.index(page);
  let list = labellables.get(index);
  if (!list) {
    list = index.all.filter((el) =>
      el.tagName === 'input' ? !NOT_LABELLED.has((el.attribs['type'] ?? '').toLowerCase()) : el.tagName === 'select' || el.tagName === 'textarea',
    );
    labellables.set(index, list);
  }
  return list.slice();
}

/** Buttons: <button>, button-like inputs, role="button", in document order. */
export function buttons(derived: Derived, page: PageProbe): Element[] {
  const index = derived.index(page);
  let list = buttonLists.get(index);
  if (!list) {
    list = index.all.filter(
      (el) => el.tagName === 'button' || (el.tagName === 'input' && BUTTON_INPUTS.has((el.attribs['type'] ?? '').toLowerCase())) || el.attribs['role'] === 'button',
    );
    buttonLists.set(index, list);
  }
  return list.slice();
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

/**
 * One walk over the elements, in document order (what `$('label[for]')` and `$('[id]')` matched, without two
 * selector traversals), and the labels' text read with `$.text`, without a Cheerio wrapper per element.
 */
function indexOf($: CheerioAPI): NameIndex {
  let index = indexes.get($);
  if (!index) {
    const labelled = new Set<string>();
    const byId = new Map<string, Element>();
    const stack: AnyNode[] = [...($.root().get(0)?.children ?? [])].reverse();
    while (stack.length > 0) {
      const node = stack.pop() as AnyNode;
      if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
      const el = node as Element;
      const id = el.attribs['id'];
      if (id !== undefined && !byId.has(id)) byId.set(id, el);
      const labelFor = el.attribs['for'];
      if (el.tagName === 'label' && labelFor !== undefined && $.text([el]).trim() !== '') labelled.add(labelFor);
      for (let i = el.children.length - 1; i >= 0; i--) stack.push(el.children[i] as AnyNode);
    }
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
    return target !== undefined && $.text([target]).trim() !== '';
  });
}

export function controlHasLabel($: CheerioAPI, el: Element): boolean {
  if (ariaName($, el)) return true;
  const id = el.attribs['id'];
  if (id && indexOf($).labelled.has(id)) return true;
  for (let p = el.parent; p; p = p.parent) {
    if (p.type === 'tag' && (p as Element).tagName === 'label') {
      if ($.text([p as Element]).trim() !== '') return true;
      break;
    }
  }
  // title and placeholder are last-resort names in accname; axe accepts title, we accept both as a weak name.
  return (el.attribs['title'] ?? '').trim() !== '' || (el.attribs['placeholder'] ?? '').trim() !== '';
}

export function buttonHasName($: CheerioAPI, el: Element): boolean {
  if (ariaName($, el)) return true;
  if (el.tagName === 'input') {
    const type = (el.attribs['type'] ?? '').toLowerCase();
    if (type === 'image') return (el.attribs['alt'] ?? '').trim() !== '';
    // submit and reset have a default label from the browser when value is absent.
    return (el.attribs['value'] ?? '').trim() !== '' || type === 'submit' || type === 'reset';
  }
  if ($.text([el]).trim() !== '') return true;
  if (hasNamedImage(el)) return true;
  return (el.attribs['title'] ?? '').trim() !== '';
}

/** Whether a descendant <img> has a non-blank alt (what `find('img[alt]')` and a trim found, without a selector). */
function hasNamedImage(el: Element): boolean {
  const stack: AnyNode[] = [...el.children];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (node.type !== 'tag') continue;
    const child = node as Element;
    if (child.tagName === 'img' && (child.attribs['alt'] ?? '').trim() !== '') return true;
    stack.push(...child.children);
  }
  return false;
}

export function describe($: CheerioAPI, el: Element): string {
  return $.html(el).replace(/\s+/g, ' ').slice(0, 100);
}
