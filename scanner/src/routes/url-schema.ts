/** The url field as every request schema of the spec defines it: absolute URI, at most 2048 characters, http(s). */
export const URL_SCHEMA = Object.freeze({
  type: 'string',
  format: 'uri',
  maxLength: 2048,
  // The scheme is checked here too so ftp:, javascript: and data: fail validation, not later.
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
});
