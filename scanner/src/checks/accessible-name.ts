import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';

/**
 * A static approximation of the accessible name (accname 1.2) for form controls and buttons, shared by the
 * accessibility and agent-readiness checks: agents find controls by the same names screen readers announce.
 */

/** Inputs that take user data and so need a label (hidden, submit, reset, button and image are named otherwise). */
export const LABELLABLE = 'input:not([type="hidden" i]):not([type="submit" i]):not([type="reset" i]):not([type="button" i]):not([type="image" i]), select, textarea';
export const BUTTONS = 'button, input[type="submit" i], input[type="reset" i], input[type="button" i], input[type="image" i], [role="button"]';

function ariaName($: CheerioAPI, el: Element): boolean {
  const node = $(el);
  if ((node.attr('aria-label') ?? '').trim()) return true;
  const ids = (node.attr('aria-labelledby') ?? '').split(/\s+/).filter(Boolean);
  return ids.some((id) => $(`[id="${id.replace(/"/g, '')}"]`).text().trim() !== '');
}

export function controlHasLabel($: CheerioAPI, el: Element): boolean {
  if (ariaName($, el)) return true;
  const node = $(el);
  const id = node.attr('id');
  if (id && $(`label[for="${id.replace(/"/g, '')}"]`).text().trim() !== '') return true;
  if (node.closest('label').text().trim() !== '') return true;
  // title and placeholder are last-resort names in accname; axe accepts title, we accept both as a weak name.
  return (node.attr('title') ?? '').trim() !== '' || (node.attr('placeholder') ?? '').trim() !== '';
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
