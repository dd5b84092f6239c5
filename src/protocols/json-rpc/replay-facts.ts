import type { ChannelHint, ProtocolFacts } from '../protocol.js';
import { answerJsonRpcMiss } from './replay-miss.js';
import { jsonRpcPeerRequest } from './peer-request.js';
import { classifyJsonRpc } from './json-rpc-message.js';
import { JSON_RPC_RULES } from './json-rpc-rules.js';
import { jsonRpcMessageEvidence, sniffJsonRpc } from './sniff.js';

/** WebSocket subprotocols that name plain JSON-RPC 2.0 (as some servers offer it). */
export const JSON_RPC_SUBPROTOCOLS: readonly string[] = ['jsonrpc', 'json-rpc', 'jsonrpc-2.0'];

/** The first subprotocol offered or chosen that names JSON-RPC, if any. */
export function jsonRpcSubprotocolOf(header: string | undefined): string | undefined {
  return header
    ?.split(',')
    .map((entry) => entry.trim().toLowerCase())
    .find((entry) => JSON_RPC_SUBPROTOCOLS.includes(entry));
}

/**
 * Which channels carry plain JSON-RPC 2.0: a WebSocket whose subprotocol says so. Any other stream
 * (a WebSocket without one, a stdio child) is JSON-RPC when its messages are (sniff), and ACP's when
 * one of them is an ACP method. Never HTTP: MCP's Streamable HTTP spreads one conversation over many
 * POSTs, which per-exchange correlation would misjudge.
 */
export const jsonRpcReplayFacts: ProtocolFacts<'json-rpc', 'ws' | 'stdio' | 'file'> = {
  id: 'json-rpc',
  transports: ['ws', 'stdio', 'file'],
  streamEndRules: [JSON_RPC_RULES.unansweredRequest],
  classify(hint: ChannelHint): number {
    return hint.transport === 'ws' && jsonRpcSubprotocolOf(hint.subprotocol) !== undefined ? 0.9 : 0;
  },
  channelEvidence: (hint) => `WebSocket subprotocol ${jsonRpcSubprotocolOf(hint.subprotocol) ?? 'jsonrpc'}`,
  sniff: sniffJsonRpc,
  messageEvidence: jsonRpcMessageEvidence,
  // ACP's answers are JSON-RPC responses too: only a method call says a stdio child speaks plain JSON-RPC.
  decidesStdio: (value) => classifyJsonRpc(value).kind !== 'response',
  // A response carries its request's id.
  fields: { '/id': 'echoed-client-id' },
  replay: { missAnswers: { message: answerJsonRpcMiss, summary: 'JSON-RPC requests get a JSON-RPC error response' }, peerRequest: jsonRpcPeerRequest },
};
