import type { ExchangeFields } from '../store/schema.js';
import { isIdLikeSegment } from '../diff/path-template.js';

/** What names an exchange's case: the columns every reader of a recording has. */
export type CaseExchange = Pick<ExchangeFields, 'id' | 'transport' | 'protocol' | 'method' | 'path'>;

/** The columns of an exchange row that name its case, without the rest (headers) a report does not keep. */
export function caseExchangeOf({ id, transport, protocol, method, path }: CaseExchange): CaseExchange {
  return { id, transport, protocol, method, path };
}

/**
 * A case's name: the method and the route (the path with its generated segments as `{id}`, so the
 * name of one call stays the same from run to run), or, for a conversation, its kind; the exchange's
 * id last, so that two calls of one route stay two cases: `POST /agent (#3)`,
 * `WebSocket /v1/session/{id}/rpc (#4)`, `stdio conversation (#1)`, `NDJSON connection (#2)`.
 * `of` names another recording the id is of: `POST /agent (#3 of the baseline)`.
 */
export function caseName(exchange: CaseExchange, of?: string): string {
  return `${caseTitle(exchange)} (#${exchange.id}${of === undefined ? '' : ` of ${of}`})`;
}

/** The case's class: the protocol that classified the exchange, else its transport. */
export function caseClass(exchange: Pick<CaseExchange, 'transport' | 'protocol'>): string {
  return exchange.protocol ?? exchange.transport;
}

function caseTitle(exchange: CaseExchange): string {
  switch (exchange.transport) {
    case 'ws':
      return `WebSocket ${route(exchange.path)}`;
    case 'stdio':
      return 'stdio conversation';
    case 'ndjson':
      return 'NDJSON connection';
    default:
      return `${exchange.method ?? 'HTTP'} ${route(exchange.path)}`;
  }
}

/** A segment of 12 or more id characters with 4 or more digits in it (`pd-1f2e3d4c5b6a7980`): minted, not named. */
const MINTED = /^(?=(?:[^0-9]*[0-9]){4})[A-Za-z0-9_-]{12,}$/;

/** The path without its query, generated segments (uuids, numbers, `run-…`, long or minted tokens) as `{id}`. */
export function route(path: string | null): string {
  if (path === null || path === '') return '/';
  const bare = path.split('?')[0]!;
  return bare
    .split('/')
    .map((segment) => {
      const value = safeDecode(segment);
      return isIdLikeSegment(value) || MINTED.test(value) ? '{id}' : segment;
    })
    .join('/');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
