export { classifyJsonRpc, formatId, idKey, isJsonRpcId, type JsonRpcId, type JsonRpcShape } from './json-rpc-message.js';
export { JsonRpcCorrelator, type Correlation, type CorrelatorOptions, type PendingRequest } from './json-rpc-correlator.js';
export { JSON_RPC_RULES, type JsonRpcRule } from './json-rpc-rules.js';
