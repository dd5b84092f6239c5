/** The Pi daemon REST corpus in ../shared, for the conformance tests only. */
import { readSharedJson } from '../support/shared.js';
import type { CapturedExchange } from '../protocols/pi-rest/pi-rest-helpers.js';

/** The real daemon's REST traffic (captured/rest-session-lifecycle.json). */
export function capturedExchanges(): CapturedExchange[] {
  return readSharedJson<{ records: CapturedExchange[] }>('fixtures', 'pi-daemon', 'captured', 'rest-session-lifecycle.json').records;
}

/** One of the daemon's own contract fixtures (upstream-v0.3.0/session-api). */
export function upstreamFixture<T = unknown>(name: string): T {
  return readSharedJson<T>('fixtures', 'pi-daemon', 'upstream-v0.3.0', 'session-api', name);
}
