/**
 * The url field as every request schema defines it: at most 2048 characters, http(s). Whether it parses is
 * left to the WHATWG URL parser in target.ts, as a browser would: Unicode host names (turned into punycode) and
 * queries with a stray `%` are accepted, which JSON Schema's `format: uri` refused.
 */
export const URL_SCHEMA = Object.freeze({
  type: 'string',
  maxLength: 2048,
  // The scheme is checked here too so ftp:, javascript: and data: fail validation, not later.
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
});
