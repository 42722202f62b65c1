import type { Recognizer } from '../recognizer.js';
import { isWordChar } from '../text-boundaries.js';

// Letters: ASCII and Latin-1/Latin Extended-A/B (Portuguese, Spanish, French, German … addresses, RFC 6531). The
// full \p{L} class times the repetition bounds makes a program RE2 refuses as too large.
const L = 'A-Za-z0-9\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F';
// Local part: dot-atom characters, not starting or ending with a dot, at most 64 characters. Because the class
// covers everything that may precede it, RE2's leftmost match already starts at the beginning of the address.
const LOCAL_EDGE = `[${L}_%+\\-]`;
const LOCAL = `${LOCAL_EDGE}(?:[${L}._%+\\-]{0,62}${LOCAL_EDGE})?`;
// Domain: 1-8 labels of letters/digits/hyphens (no hyphen at either end), then a 2-24 letter TLD.
const LABEL = `[${L}](?:[${L}\\-]{0,61}[${L}])?`;
const DOMAIN = `(?:${LABEL}\\.){1,8}[A-Za-z]{2,24}`;

/**
 * File extensions that look like TLDs after `name@2x`: retina assets (`icon@2x.png`) and versioned files are the
 * commonest e-mail look-alikes in prompts. None of them is a delegated TLD.
 */
const FILE_EXTENSIONS = new Set(
  'png jpg jpeg gif svg webp bmp ico tif tiff heic pdf txt css scss html htm json yaml yml xml csv tsv zip tar gz tgz exe dll bin log lock mp3 mp4 wav mov avi mkv woff woff2 ttf otf map'.split(' '),
);

export const email: Recognizer = {
  entity: 'EMAIL',
  id: 'email',
  pattern: `${LOCAL}@${DOMAIN}`,
  validate(text, _start, end) {
    // `a@b.com1` or `a@b.co_uk` is no address; `a@b.com.` (end of sentence) is.
    if (isWordChar(text, end) || text[end] === '@') return -1;
    const dot = text.lastIndexOf('.', end - 1);
    if (FILE_EXTENSIONS.has(text.slice(dot + 1, end).toLowerCase())) return -1;
    return end;
  },
  resumeAfterReject(text, start) {
    // Every later start before the `@` shares this domain, so it would be rejected for the same reason.
    const at = text.indexOf('@', start);
    return at < 0 ? start + 1 : at + 1;
  },
};
