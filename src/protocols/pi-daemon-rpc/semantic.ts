import type { SemanticFold } from '../protocol.js';
import { piSessionSemantic } from '../pi-rpc/semantic.js';

/**
 * The framed RPC's fold, a Pi session's. The event counters (`sequence` on every frame) count the
 * streamed partials too, whose number varies with streaming timing: gaps and repeats are the
 * verdict's business (sequence-gap).
 */
export const piDaemonRpcSemantic: SemanticFold = piSessionSemantic(['ws', 'stdio'], ['/sequence']);
