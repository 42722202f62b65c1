import { GatewayError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { AnswerFormat } from '../formats/answer-format.js';
import { GEMINI as GEMINI_ANSWERS, GEMINI_NO_TEXT, geminiError } from '../formats/gemini.js';
import { geminiMedia } from '../formats/request-media.js';
import { FORWARDED_API_KEY, PROXY_HEADERS } from '../proxy-headers.js';
import { defineWireFormat, type Endpoint, type EndpointSpec, type WireRoute } from './wire-format.js';

type Json = Record<string, unknown>;

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** A Gemini model id as the path names it, and the API versions the SDK speaks. */
const GEMINI_MODEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const GEMINI_VERSIONS: ReadonlySet<string> = new Set(['v1', 'v1beta']);

/** The route's `{model}:{method}` segment: the model, checked before it goes into the upstream URL. */
function geminiModel(http: RequestContext): string {
  const call = http.params[1] ?? '';
  const model = call.slice(0, call.lastIndexOf(':'));
  if (!GEMINI_MODEL.test(model)) throw new GatewayError('invalid_request', 'model: letters, digits, . _ - (at most 128)');
  return model;
}

function contentsBody(req: Json): void {
  const contents = req['contents'];
  if (!Array.isArray(contents) || contents.length === 0) throw new GatewayError('invalid_request', 'contents: required non-empty array');
}

function countTokensBody(req: Json): void {
  if (!Array.isArray(req['contents']) && (req['generateContentRequest'] === null || typeof req['generateContentRequest'] !== 'object')) {
    throw new GatewayError('invalid_request', 'contents or generateContentRequest: required');
  }
}

function embedContentBody(req: Json): void {
  if (req['content'] === null || typeof req['content'] !== 'object') throw new GatewayError('invalid_request', 'content: required object');
}

function batchEmbedContentsBody(req: Json): void {
  if (!Array.isArray(req['requests']) || req['requests'].length === 0) throw new GatewayError('invalid_request', 'requests: required non-empty array');
}

/** Gemini's calls: `/{version}/models/{model}:{method}`, the stream with `alt=sse`. */
function gemini<M extends string>(method: M, format: AnswerFormat, streams: boolean, validate: (req: Json) => void): EndpointSpec<`gemini.${M}`> {
  return {
    kind: `gemini.${method}`,
    upstreamPath: '',
    eventType: `proxy.gemini.${method}`,
    governed: true,
    format,
    requestMedia: geminiMedia,
    asksStreamUsage: false,
    streams,
    validate,
    modelOf: geminiModel,
    pathOf(http) {
      const version = http.params[0] ?? '';
      if (!GEMINI_VERSIONS.has(version)) throw new GatewayError('route_not_found', 'gemini: v1 or v1beta');
      return `/${version}/models/${geminiModel(http)}:${method}${streams ? '?alt=sse' : ''}`;
    },
  };
}

/**
 * Gemini names the model and the call in one segment (`gemini-2.0-flash:generateContent`): one route, the endpoint
 * picked by the call; a call that is not proxied is a 404, never relayed.
 */
function callRoute(endpoints: ReadonlyMap<string, Endpoint>): readonly WireRoute[] {
  return [
    {
      method: 'post',
      path: '/v1/proxy/gemini/:version/models/:call',
      pick(http) {
        const call = http.params[1] ?? '';
        const colon = call.lastIndexOf(':');
        return colon < 0 ? null : (endpoints.get(`gemini.${call.slice(colon + 1)}`) ?? null);
      },
      notProxied: 'this Gemini call is not proxied (generateContent, streamGenerateContent, countTokens, embedContent, batchEmbedContents are)',
    },
  ];
}

/**
 * Google's Gemini API under /v1/proxy/gemini (`@google/genai`'s base URL). The SDK's key header is `x-goog-api-key`;
 * the client's own key arrives in `x-forwarded-api-key`. Refusals answer in Google's error shape.
 */
export const GEMINI = defineWireFormat(
  {
    provider: 'gemini',
    upstream: (config) => ({ baseUrl: config.upstreamGeminiBaseUrl, apiKey: config.upstreamGeminiApiKey }),
    upstreamKeyHeader: 'x-goog-api-key',
    keyHeaders: ['x-goog-api-key'],
    headers: PROXY_HEADERS,
    forwardedKeyAt: FORWARDED_API_KEY,
    passHeaders: () => NO_HEADERS,
    errorBody: (_status, ours) => geminiError(ours),
    picking: callRoute,
  },
  [
    gemini('generateContent', GEMINI_ANSWERS, false, contentsBody),
    gemini('streamGenerateContent', GEMINI_ANSWERS, true, contentsBody),
    gemini('countTokens', GEMINI_NO_TEXT, false, countTokensBody),
    gemini('embedContent', GEMINI_NO_TEXT, false, embedContentBody),
    gemini('batchEmbedContents', GEMINI_NO_TEXT, false, batchEmbedContentsBody),
  ],
);
