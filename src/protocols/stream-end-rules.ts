import { RULES as AGUI_RULES } from './agui/rules.js';
import { JSON_RPC_RULES } from './json-rpc/json-rpc-rules.js';
import { PI_DAEMON_RPC_RULES } from './pi-daemon-rpc/rules.js';
import { PI_RPC_RULES } from './pi-rpc/rules.js';
import { NDJSON_RULES } from './unix-ndjson/unix-ndjson-rules.js';

/**
 * The rules a checker's `end()` reports when a stream ends: about the stream as a whole (a run
 * never finished, a request never answered), not about a place in a message. Such a finding is
 * stored on the stream's last message with the pointer `''`, the same pointer as a finding on a
 * message's whole document (an event that is not an object); the rule tells the two apart.
 */
export const STREAM_END_RULES: ReadonlySet<string> = new Set([
  AGUI_RULES.D6,
  JSON_RPC_RULES.unansweredRequest,
  NDJSON_RULES.unansweredCommand,
  PI_RPC_RULES.commandUnanswered.id,
  PI_DAEMON_RPC_RULES.treeNavigateUnanswered.id,
  PI_DAEMON_RPC_RULES.replayGapWithoutAttachReady.id,
]);
