import type { Endpoint } from './wire/wire-format.js';
import { WIRE_FORMATS, type EndpointKind } from './wire/wire-formats.js';

export type { Endpoint } from './wire/wire-format.js';
export type { EndpointKind, Provider } from './wire/wire-formats.js';

/** Every format's endpoints by kind, from the one table of wire formats. */
export const ENDPOINTS: Readonly<Record<EndpointKind, Endpoint>> = Object.freeze(
  Object.fromEntries(WIRE_FORMATS.flatMap((wire) => wire.endpoints.map((e) => [e.kind, e]))) as Record<EndpointKind, Endpoint>,
);
