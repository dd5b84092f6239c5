import { isMcpInitializeResult, mcpMethodOf } from './mcp-methods.js';

/**
 * A JSON-RPC request or notification of a method MCP defines is MCP's (its `initialize` only with
 * MCP's params, so ACP keeps its own), and so is an InitializeResult; another response, or another
 * method, is plain JSON-RPC until an MCP method says otherwise.
 */
export function sniffMcp(value: unknown): number {
  return mcpMethodOf(value) !== undefined || isMcpInitializeResult(value) ? 0.95 : 0;
}

/** What made sniffMcp claim a message, for `show`. */
export function mcpMessageEvidence(value: unknown): string {
  return isMcpInitializeResult(value) ? 'MCP InitializeResult' : `MCP method ${mcpMethodOf(value) ?? '(none)'}`;
}
