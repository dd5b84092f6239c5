import { semanticFoldByProtocol } from '../protocols/semantic-folds.js';
import type { SemanticFold } from '../protocols/protocol.js';
import type { Carrier } from '../core/message.js';
import type { MessageRow } from '../store/store-types.js';

/**
 * `--semantic`: what a client materialises from a stream, so that re-chunking the same content is
 * not a difference. Each protocol says how its streams fold (ProtocolModule.semantic): the AG-UI
 * run, a Pi session's text and tool executions, ACP's chunked messages.
 */

/** How `--semantic` folds an exchange's streamed server messages, if its protocol folds them on its transport. */
export function semanticFoldOf(protocol: string | null, transport: string): SemanticFold | undefined {
  const fold = semanticFoldByProtocol(protocol);
  return fold && (fold.transports as readonly string[]).includes(transport) ? fold : undefined;
}

/**
 * The transport an exchange is aligned by: its own, except under `--semantic` for a protocol whose
 * fold pairs deliveries (SemanticFold.pairsDeliveries), where an answer streamed over `sse` and one
 * whole over `http` are the same call, both aligned as `http`.
 */
export function alignedTransport(protocol: string | null, transport: string, semantic: boolean): string {
  return semantic && transport === 'sse' && semanticFoldOf(protocol, transport)?.pairsDeliveries === true && semanticFoldOf(protocol, 'http') !== undefined ? 'http' : transport;
}

/** The carrier a folded result is compared under: a result that stands for the whole answer however it travelled has the body's. */
export function foldedCarrier(fold: SemanticFold, carrier: Carrier): Carrier {
  return fold.pairsDeliveries ? 'body' : carrier;
}

/**
 * Headers that only say how an answer travelled, not compared between a streamed answer and a whole one: the
 * response's media type and caching (an event stream is not cached), and the SDKs' note of the stream helper
 * that asked for it (`x-stainless-helper-method: stream`, from `messages.stream()` or `chat.completions.stream()`).
 */
const DELIVERY_HEADERS: Readonly<Record<string, ReadonlySet<string>>> = {
  responseHeaders: new Set(['content-type', 'cache-control']),
  requestHeaders: new Set(['x-stainless-helper-method']),
};

/** Is this exchange field difference (a pointer into the compared fields) one that only says how the answer travelled? */
export function isDeliveryField(pointer: string): boolean {
  const match = /^\/(responseHeaders|requestHeaders)\/([^/]+)$/.exec(pointer);
  return match !== null && DELIVERY_HEADERS[match[1]].has(match[2]);
}

/** Fields a protocol's messages do not compare under `--semantic`. */
export function semanticDrops(protocol: string | null): readonly string[] {
  return semanticFoldByProtocol(protocol)?.drops ?? [];
}

/** Is this server message compared only through the materialised result? */
export function isFoldedMessage(fold: SemanticFold, m: Pick<MessageRow, 'sender' | 'json'>): boolean {
  if (m.json === undefined) return false;
  return m.sender === 'server' ? fold.folds(m.json) : fold.foldsClient?.(m.json) === true;
}

/**
 * Is this message without JSON left out under `--semantic`, as telling the client nothing
 * (SemanticFold.saysNothing)? Never an invalid one: its findings are compared.
 */
export function saysNothing(fold: SemanticFold | undefined, m: { json: unknown; status: string }, raw: () => string): boolean {
  return fold?.saysNothing !== undefined && m.json === undefined && m.status !== 'invalid' && fold.saysNothing(raw());
}

/** Does this server message feed the materialised result? The folded ones, and what the protocol adds (every Pi event). */
export function feedsMaterializer(fold: SemanticFold, m: Pick<MessageRow, 'sender' | 'json'>): boolean {
  if (!fold.feeds || m.sender !== 'server') return isFoldedMessage(fold, m);
  return m.json !== undefined && fold.feeds(m.json);
}

/** The message the folded result stands in place of: the last server message fed (the last fed when there is none). */
export function foldedPlace<M extends Pick<MessageRow, 'sender'>>(fed: readonly M[]): M {
  for (let i = fed.length - 1; i >= 0; i--) if (fed[i].sender === 'server') return fed[i];
  return fed[fed.length - 1];
}

/**
 * Under `--semantic` an exchange is compared as independent streams, each in its own order: what
 * the client sent, what the server sent, and a stdio agent's stderr (a pipe of its own). How the
 * streams interleave is a race the protocols leave open. 0, 1, 2: the order they are compared in.
 */
export function streamOf(m: Pick<MessageRow, 'sender' | 'channel'>): 0 | 1 | 2 {
  if (m.sender !== 'server') return 0;
  return m.channel === 'stderr' ? 2 : 1;
}
