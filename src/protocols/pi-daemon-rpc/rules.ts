import type { Rule } from '../pi-rpc/rules.js';

/**
 * Rules of the framed `pi-daemon-rpc.v1` connection. The raw Pi RPC rules (response
 * correlation, extension UI) apply to the `command`/`response`/`event` each frame carries.
 */
export const PI_DAEMON_RPC_RULES = {
  unknownFrameKind: {
    id: 'unknown-frame-kind',
    severity: 'error',
    summary: 'a frame is a JSON object whose `kind` is one of the nine sessionRpcFrame kinds',
  },
  wrongDirection: {
    id: 'wrong-direction',
    severity: 'error',
    summary: 'command, extension_ui_response, tree_navigate and request_control come from the client; attach_ready, replay_gap, response, event, tree_navigate_result, control_granted and control_denied from the daemon',
  },
  attachReadyNotFirst: {
    id: 'attach-ready-not-first',
    severity: 'error',
    summary: 'attach_ready is the first server frame, preceded at most by one replay_gap',
  },
  replayGapWithoutAttachReady: {
    id: 'replay-gap-without-attach-ready',
    severity: 'error',
    summary: 'a replay_gap is always followed by a fresh attach_ready',
  },
  replayGapAfterAttach: {
    id: 'replay-gap-after-attach',
    severity: 'error',
    summary: 'replay_gap is only sent while attaching, before attach_ready',
  },
  attachReadyRepeated: {
    id: 'attach-ready-repeated',
    severity: 'error',
    summary: 'a connection gets one attach_ready',
  },
  eventSequenceGap: {
    id: 'event-sequence-gap',
    severity: 'error',
    summary: 'event `sequence` rises by exactly 1 per connection: the daemon replays retained events and then sends live ones with no gap',
  },
  eventSequenceNotIncreasing: {
    id: 'event-sequence-not-increasing',
    severity: 'error',
    summary: 'an event `sequence` repeats or goes backwards',
  },
  inFlightLimitExceeded: {
    id: 'in-flight-limit-exceeded',
    severity: 'warning',
    summary:
      "the daemon rejected a frame with rpc_in_flight_capacity: the client sent it while maxInFlightCommandsPerConnection commands were unanswered (judged from the rejection, not from the proxy's count, which runs ahead of the daemon's)",
  },
  treeNavigateUnknownCorrelation: {
    id: 'tree-navigate-unknown-correlation',
    severity: 'error',
    summary: 'a tree_navigate_result answers a tree_navigate of this connection that is still open, by correlationId',
  },
  treeNavigateDuplicateCorrelation: {
    id: 'tree-navigate-duplicate-correlation',
    severity: 'warning',
    summary: 'a tree_navigate reuses the correlationId of one still open, so the results cannot be told apart',
  },
  treeNavigateUnanswered: {
    id: 'tree-navigate-unanswered',
    severity: 'warning',
    summary: 'a tree_navigate was still waiting for its result when the connection ended cleanly',
  },
  controlConnectionMismatch: {
    id: 'control-connection-mismatch',
    severity: 'error',
    summary: "a server control frame's `connectionId` is this connection's, as announced in attach_ready",
  },
} as const satisfies Record<string, Rule>;

