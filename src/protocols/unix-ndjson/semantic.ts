import type { SemanticFold } from '../protocol.js';
import { piSessionSemantic } from '../pi-rpc/semantic.js';

/** Socket events are a Pi session's, and carry the same counters as the framed RPC's. */
export const unixNdjsonSemantic: SemanticFold = piSessionSemantic(['ndjson'], ['/sequence']);
