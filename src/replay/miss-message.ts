import type { ReplayMiss } from './replay-context.js';
import { MAX_MATCH_DEPTH, MAX_REQUEST_FLAG } from './http/request-limits.js';

/** One readable sentence about a miss, for logs and the 404 body. */
export function missMessage(miss: ReplayMiss): string {
  const what = `${miss.request.method} ${miss.request.path}${miss.request.query ? '?' + miss.request.query : ''}`;
  if (miss.reason === 'too-large') {
    const size = miss.request.bodyBytes === undefined || miss.request.bodyTruncated ? '' : ` (${miss.request.bodyBytes} bytes)`;
    return `${what}: the ${miss.transport === 'ws' ? 'frame' : 'request body'}${size} is larger than the replay's limit of ${miss.limit} bytes; ${MAX_REQUEST_FLAG} <bytes> raises it`;
  }
  if (miss.reason === 'exhausted') return `${what}: every recorded answer for this request was used (exchange ${miss.nearest?.exchangeId} last); --reuse serves it again`;
  if (!miss.nearest) return `${what} matches no recorded exchange`;
  const deep = miss.request.bodyTooDeep ? ` (its JSON nests deeper than ${MAX_MATCH_DEPTH} levels, so it is compared byte for byte)` : '';
  const differs = miss.differences.length > 0 ? `; differs in ${miss.differences.join(', ')}${deep}` : deep;
  return `${what} matches no recorded exchange; nearest is exchange ${miss.nearest.exchangeId} (${miss.nearest.method} ${miss.nearest.path})${differs}`;
}
