import { moduleById } from '../protocols/module-by-id.js';
import type { ProtocolModule } from '../protocols/protocol.js';
import type { ProtocolId } from '../protocols/catalog.js';
import { detectProtocol, type ProtocolEvidence } from './protocol-detection.js';

export { checkProtocolOption, parseProtocolOption } from './protocol-option.js';
export { FORCED_EVIDENCE, PROTOCOL_SAMPLE_SIZE, type ProtocolEvidence } from './protocol-detection.js';

/** The protocol a stream is judged by, and the evidence that chose it (`route GET /v1/session/{sessionRef}`), for `show`. */
export interface ProtocolChoice {
  module: ProtocolModule<ProtocolId>;
  evidence: string;
}

/**
 * The protocol a stream's messages are judged by, for `record` and `validate` alike, with its full
 * module (protocol-detection.ts tells it from the facts alone); undefined: none claims it, and its
 * messages are unchecked (never judged by the rules of a protocol that merely shares a transport, a
 * path prefix or a message envelope with it).
 */
export function chooseProtocol(evidence: ProtocolEvidence): ProtocolChoice | undefined {
  const detected = detectProtocol(evidence);
  return detected && { module: moduleById(detected.facts.id), evidence: detected.evidence };
}
