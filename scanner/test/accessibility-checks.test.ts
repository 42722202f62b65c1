import { describe, expect, it } from 'vitest';
import { GOOD_HEADERS, GOOD_HTML } from './fixtures/pages.js';
import { goodSnapshot, page } from './fixtures/snapshots.js';
import { runOne } from './run-one.js';

const replaced = (from: string | RegExp, to: string) => goodSnapshot({ page: page(GOOD_HTML.replace(from, to), GOOD_HEADERS) });

describe('accessibility checks (axe / Lighthouse semantics)', () => {
  it('img alt: missing alt fails with the src quoted; alt="" and role=presentation are decorative', () => {
    const r = runOne('accessibility.img-alt', replaced('alt="Grãos de café saindo do torrador"', ''));
    expect(r.status).toBe('fail');
    expect(r.finding?.evidence).toContain('<img src="/torra.jpg">');
    expect(runOne('accessibility.img-alt', replaced('alt="Grãos de café saindo do torrador"', 'alt=""')).status).toBe('pass');
    expect(runOne('accessibility.img-alt', replaced('alt="Grãos de café saindo do torrador"', 'role="presentation"')).status).toBe('pass');
  });

  it('form labels: label[for], wrapping label and aria-label count; a bare input fails', () => {
    expect(runOne('accessibility.form-labels', goodSnapshot()).status).toBe('pass');
    expect(runOne('accessibility.form-labels', replaced('<label for="email">E-mail</label> <input id="email" name="email" type="email">', '<label>E-mail <input name="email"></label>')).status).toBe('pass');
    const bare = runOne('accessibility.form-labels', replaced('<label for="email">E-mail</label>', ''));
    expect(bare.finding?.evidence).toContain('<input id="email" name="email" type="email">');
    expect(runOne('accessibility.form-labels', replaced('</form>', '<input type="hidden" name="csrf"><input type="submit"></form>')).status).toBe('pass');
  });

  it('html lang: absent or malformed fails', () => {
    expect(runOne('accessibility.html-lang', replaced('<html lang="pt-BR">', '<html>')).finding?.title).toMatch(/no lang/);
    expect(runOne('accessibility.html-lang', replaced('<html lang="pt-BR">', '<html lang="portuguese brazil">')).status).toBe('fail');
  });

  it('viewport: user-scalable=no and maximum-scale below 5 fail; no viewport fails', () => {
    const vp = '<meta name="viewport" content="width=device-width, initial-scale=1">';
    expect(runOne('accessibility.viewport', replaced(vp, '<meta name="viewport" content="width=device-width, user-scalable=no">')).finding?.title).toBe('Zooming is disabled');
    expect(runOne('accessibility.viewport', replaced(vp, '<meta name="viewport" content="width=device-width, maximum-scale=1">')).status).toBe('fail');
    expect(runOne('accessibility.viewport', replaced(vp, '<meta name="viewport" content="width=device-width, maximum-scale=5">')).status).toBe('pass');
    expect(runOne('accessibility.viewport', replaced(vp, '')).finding?.title).toBe('No viewport meta tag');
  });

  it('button name: an icon-only button without aria-label fails', () => {
    const r = runOne('accessibility.button-name', replaced('<button type="submit">Assinar</button>', '<button type="submit"><svg></svg></button>'));
    expect(r.status).toBe('fail');
    expect(runOne('accessibility.button-name', replaced('<button type="submit">Assinar</button>', '<button aria-label="Assinar"><svg></svg></button>')).status).toBe('pass');
  });

  it('button name: an image with alt text, a title or an input button\'s value names it; a blank alt or an unlabelled input button does not', () => {
    const button = '<button type="submit">Assinar</button>';
    const status = (html: string) => runOne('accessibility.button-name', replaced(button, html)).status;
    expect(status('<button type="submit"><span><img src="/i.png" alt="Assinar"></span></button>')).toBe('pass');
    expect(status('<button type="submit"><img src="/i.png" alt="  "></button>')).toBe('fail');
    expect(status('<button type="submit" title="Assinar"><svg></svg></button>')).toBe('pass');
    expect(status('<input type="image" src="/i.png" alt="Buscar">')).toBe('pass');
    expect(status('<input type="image" src="/i.png" alt="">')).toBe('fail');
    expect(status('<input type="button">')).toBe('fail');
    expect(status('<input type="button" value="Enviar">')).toBe('pass');
    expect(status('<input type="submit">')).toBe('pass');
  });

  it('page checks are not applicable to a JSON answer', () => {
    const json = goodSnapshot({ page: page('{"a":1}', { 'content-type': 'application/json' }) });
    expect(runOne('accessibility.img-alt', json).status).toBe('not_applicable');
  });
});
