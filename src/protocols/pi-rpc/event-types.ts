/**
 * Every stdout event type Pi 0.82.1 emits in RPC mode: `AgentEvent`, the session layer's
 * additions, and the mode's own (`extension_error`, `extension_ui_request`), plus the daemon's
 * `rpc_event_dropped` placeholder for an event too big to relay. Used for sniffing only: the
 * schema (`piRpcEvent`) deliberately accepts any type but `response`.
 */
export const PI_RPC_EVENT_TYPES: readonly string[] = [
  'agent_start',
  'agent_end',
  'agent_settled',
  'turn_start',
  'turn_end',
  'message_start',
  'message_update',
  'message_end',
  'tool_execution_start',
  'tool_execution_update',
  'tool_execution_end',
  'queue_update',
  'compaction_start',
  'compaction_end',
  'auto_retry_start',
  'auto_retry_end',
  'summarization_retry_scheduled',
  'summarization_retry_attempt_start',
  'summarization_retry_finished',
  'bash_execution_update',
  'entry_appended',
  'session_info_changed',
  'thinking_level_changed',
  'extension_error',
  'extension_ui_request',
  'rpc_event_dropped',
];

const EVENT_SET = new Set(PI_RPC_EVENT_TYPES);

export function isPiRpcEventType(type: unknown): type is string {
  return typeof type === 'string' && EVENT_SET.has(type);
}
