import { ALL_PROFILES, fail, notApplicable, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Lighthouse uses-text-compression ignores small responses: compressing them saves little. */
const MIN_BYTES = 1400;
const TEXT = /^(text\/|application\/(json|javascript|xml|xhtml\+xml|ld\+json|problem\+json|manifest\+json)|image\/svg\+xml)/;

export const compression: Check<'page'> = {
  id: 'performance.compression',
  pillar: 'readiness',
  dimension: 'performance',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  version: 1,
  audience: ['development'],
  references: [REF.lhCompression, REF.mdnCompression],
  run({ page }) {
    if (!TEXT.test(page.contentType)) return notApplicable(`Not a text response (${page.contentType || 'no content type'}).`);
    if (page.bodyBytes < MIN_BYTES) return notApplicable(`Response is only ${page.bodyBytes} bytes.`);
    const encoding = page.contentEncoding.toLowerCase();
    if (/(^|,\s*)(br|gzip|zstd|deflate)\b/.test(encoding)) return pass(`Content-Encoding: ${quote(page.contentEncoding)} (${page.wireBytes} bytes on the wire for ${page.bodyBytes} decoded).`);
    return fail({
      severity: 'Medium',
      effort: 'Baixo',
      title: 'Text response is not compressed',
      evidence: `No Content-Encoding on a ${page.contentType} response of ${page.bodyBytes} bytes.`,
      impact: 'Uncompressed text usually takes 3-5 times longer to download.',
      businessImpact: 'Slower pages and higher bandwidth bills.',
      recommendation: 'Enable Brotli (br) or gzip compression for HTML, CSS, JavaScript, JSON and SVG at the server or CDN.',
    });
  },
};
