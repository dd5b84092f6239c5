import type { ProtocolId } from './catalog.js';
import type { SemanticFold } from './protocol.js';
import { acpSemantic } from './acp/semantic.js';
import { aguiSemantic } from './agui/semantic.js';
import { anthropicSemantic } from './anthropic/semantic.js';
import { mcpSemantic } from './mcp/semantic.js';
import { openAiSemantic } from './openai/semantic.js';
import { piDaemonRpcSemantic } from './pi-daemon-rpc/semantic.js';
import { piRpcSemantic } from './pi-rpc/semantic.js';
import { unixNdjsonSemantic } from './unix-ndjson/semantic.js';

/**
 * Each protocol's `--semantic` fold (the ProtocolModule.semantic its module declares, the same
 * object), by protocol, without loading the protocol modules: `diff`'s side scanner, a worker thread
 * of its own, needs the folds alone, and the modules (checkers, schemas' lookups, views) were about
 * half of what it loaded. test/diff/semantic-folds.test.ts holds this table to the modules.
 */
export const SEMANTIC_FOLDS: Readonly<Partial<Record<ProtocolId, SemanticFold>>> = {
  agui: aguiSemantic,
  'pi-daemon-rpc': piDaemonRpcSemantic,
  'pi-rpc': piRpcSemantic,
  acp: acpSemantic,
  mcp: mcpSemantic,
  'unix-ndjson': unixNdjsonSemantic,
  openai: openAiSemantic,
  anthropic: anthropicSemantic,
};

/** The fold of `protocol` (any stored text: an own key only, so `constructor` is none), or undefined. */
export function semanticFoldByProtocol(protocol: string | null): SemanticFold | undefined {
  return protocol !== null && Object.hasOwn(SEMANTIC_FOLDS, protocol) ? SEMANTIC_FOLDS[protocol as ProtocolId] : undefined;
}
