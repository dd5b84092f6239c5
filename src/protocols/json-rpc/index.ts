import type { ProtocolModule } from '../protocol.js';
import { JsonRpcChecker } from './json-rpc-checker.js';
import { classifyJsonRpc } from './json-rpc-message.js';
import { jsonRpcReplayFacts } from './replay-facts.js';

/**
 * Plain JSON-RPC 2.0, for streams of it that no other module claims (MCP over stdio, a JSON-RPC
 * WebSocket): the envelope and id correlation, nothing about the methods. Its sniff
 * scores low, so that any dialect (ACP) claims what is its own.
 */
export const jsonRpcProtocol: ProtocolModule<'json-rpc'> = {
  ...jsonRpcReplayFacts,
  title: 'JSON-RPC 2.0 (envelope and id correlation only)',
  /** A response alone does not say who answered: guessed as the server's, as requests are the client's. */
  guessSender: (value) => (classifyJsonRpc(value).kind === 'response' ? 'server' : 'client'),
  createChecker: () => new JsonRpcChecker(),
};

export { classifyJsonRpc, formatId, idKey, isJsonRpcId, type JsonRpcId, type JsonRpcShape } from './json-rpc-message.js';
export { JsonRpcCorrelator, type Correlation, type CorrelatorOptions, type PendingRequest } from './json-rpc-correlator.js';
export { JSON_RPC_RULES, type JsonRpcRule } from './json-rpc-rules.js';
export { answerJsonRpcMiss } from './replay-miss.js';
