import type { Recognizer } from '../recognizer.js';
import { boundaryAfter, boundaryBefore, isDigitCode } from '../text-boundaries.js';

/** Real keys are random: they mix digits and letters. Slugs such as `sk-learn-pipeline-config` do not. */
function looksRandom(s: string): boolean {
  let digit = false;
  let upper = false;
  let lower = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) digit = true;
    else if (c >= 65 && c <= 90) upper = true;
    else if (c >= 97 && c <= 122) lower = true;
  }
  return digit && (upper || lower);
}

const BODY_CHAR = /[A-Za-z0-9_-]/;
/** Longer than any prefix plus body below. */
const MAX_TOKEN = 300;

function bounded(text: string, start: number, end: number): boolean {
  return boundaryBefore(text, start) && boundaryAfter(text, end) && text[end] !== '-';
}

/** A token shape with a literal prefix and a random body, delimited by non-word characters. */
function tokenShape(id: string, pattern: string, prefixLen: number, needsMix = true): Recognizer {
  return {
    entity: 'API_KEY',
    id,
    pattern,
    validate(text, start, end) {
      if (!bounded(text, start, end)) return -1;
      if (needsMix && !looksRandom(text.slice(start + prefixLen, end))) return -1;
      return end;
    },
    resumeAfterReject(text, start, end) {
      // Rejected for a body without digits: a later start whose whole body window (prefix + longest body, under
      // MAX_TOKEN) holds no digit is rejected too. Skipping those keeps `sk-sk-sk-…` from costing a scan each.
      if (!needsMix || !boundaryBefore(text, start) || looksRandom(text.slice(start + prefixLen, end))) return start + 1;
      let k = start;
      while (k < text.length && BODY_CHAR.test(text[k] as string) && !isDigitCode(text.charCodeAt(k))) k++;
      return Math.max(start + 1, k - MAX_TOKEN);
    },
  };
}

function decodeJsonSegment(seg: string): unknown {
  try {
    return JSON.parse(Buffer.from(seg, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A JWT: three base64url segments whose first decodes to a JSON header naming an algorithm. */
const jwt: Recognizer = {
  entity: 'API_KEY',
  id: 'jwt',
  pattern: 'eyJ[A-Za-z0-9_\\-]{10,500}\\.eyJ[A-Za-z0-9_\\-]{2,1000}\\.[A-Za-z0-9_\\-]{0,600}',
  validate(text, start, end) {
    if (!boundaryBefore(text, start) || !boundaryAfter(text, end)) return -1;
    const header = decodeJsonSegment(text.slice(start, text.indexOf('.', start)));
    if (typeof header !== 'object' || header === null || !('alg' in header)) return -1;
    return end;
  },
};

// Line break as it appears in plain text or inside a JSON string.
const NL = '(?:\\r?\\n|\\\\r\\\\n|\\\\n)';
const PEM_HEADER = '-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----';
const PEM_END = /^-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/;
const PEM_LINE = /^(?:[A-Za-z0-9+/=]{1,128}|(?:Proc-Type|DEK-Info|Comment): [^\r\n\\]{1,200})/;
const NL_AT = /^(?:\r?\n|\\r\\n|\\n)/;
/** An 8192-bit RSA key is about 6.5 KB of PEM; past this, the rest of a "key" is not key material we redact. */
const PEM_MAX = 16_384;

/**
 * A PEM private key: the header, then (extended in code, because RE2 bounds repetition) every base64 or header line
 * that follows and the END line, so the key material itself is redacted, not just its label.
 */
const pemPrivateKey: Recognizer = {
  entity: 'API_KEY',
  id: 'pem-private-key',
  pattern: PEM_HEADER,
  // Prefixes of header + any run of body lines + a partial END line (see regex-prefix.ts for why).
  growth:
    `${PEM_HEADER}(?:${NL}(?:[A-Za-z0-9+/=]{0,128}|(?:Proc-Type|DEK-Info|Comment): [^\\r\\n\\\\]{0,200}))*` +
    `(?:${NL}-{0,5}(?:E(?:N(?:D[A-Z0-9 ]{0,60}-{0,5})?)?)?)?(?:\\r|\\\\r?|\\\\r\\\\)?`,
  maxLength: PEM_MAX + 300,
  validate(text, start, end) {
    let e = end;
    for (;;) {
      const nl = NL_AT.exec(text.slice(e, e + 4));
      if (!nl) break;
      const rest = text.slice(e + nl[0].length, e + nl[0].length + 260);
      const endLine = PEM_END.exec(rest);
      if (endLine) {
        e += nl[0].length + endLine[0].length;
        break;
      }
      const line = PEM_LINE.exec(rest);
      if (!line || e + nl[0].length + line[0].length - start > PEM_MAX) break;
      e += nl[0].length + line[0].length;
    }
    return e;
  },
};

export const apiKeyRecognizers: readonly Recognizer[] = [
  pemPrivateKey,
  jwt,
  // OpenAI: legacy `sk-` + 48, project/service/admin keys `sk-proj-…` with `-`/`_` in a long body.
  tokenShape('openai', 'sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\\-]{20,200}', 3),
  // AWS key ids are base32: a body without digits is as likely as any other.
  tokenShape('aws-access-key', '(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}', 4, false),
  tokenShape('github', '(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,255}', 4),
  tokenShape('slack', 'xox[baprs]-[A-Za-z0-9\\-]{10,250}', 5),
  tokenShape('stripe', '(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,250}', 8),
  tokenShape('google', 'AIza[0-9A-Za-z_\\-]{35}', 4, false),
  // aduana's own tokens (shared/src/tokens): prefix, 30 base62 characters and a 6-character checksum.
  tokenShape('aduana', 'adu_(?:pat|sk|ses)_[0-9A-Za-z]{36}', 8),
];
