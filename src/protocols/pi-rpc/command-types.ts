/** The 32 `RpcCommand` types of Pi 0.82.1 (`rpc-types.d.ts`; pi-daemon fixtures/pi-rpc-command-types.json). */
export const PI_RPC_COMMAND_TYPES: readonly string[] = [
  'prompt',
  'steer',
  'follow_up',
  'abort',
  'new_session',
  'get_state',
  'set_model',
  'cycle_model',
  'get_available_models',
  'set_thinking_level',
  'cycle_thinking_level',
  'get_available_thinking_levels',
  'set_steering_mode',
  'set_follow_up_mode',
  'compact',
  'set_auto_compaction',
  'set_auto_retry',
  'abort_retry',
  'bash',
  'abort_bash',
  'get_session_stats',
  'export_html',
  'switch_session',
  'fork',
  'clone',
  'get_fork_messages',
  'get_entries',
  'get_tree',
  'get_last_assistant_text',
  'set_session_name',
  'get_messages',
  'get_commands',
];

const COMMAND_SET = new Set(PI_RPC_COMMAND_TYPES);

export function isPiRpcCommandType(type: unknown): type is string {
  return typeof type === 'string' && COMMAND_SET.has(type);
}

/** The client's answer to an extension dialog; not an `RpcCommand`, but stock Pi reads it on stdin. */
export const EXTENSION_UI_RESPONSE = 'extension_ui_response';
