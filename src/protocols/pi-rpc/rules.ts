import type { Finding, Severity } from '../../core/finding.js';

/** One behavioural rule: a stable kebab-case id, its severity, and what it checks. */
export interface Rule {
  readonly id: string;
  readonly severity: Severity;
  readonly summary: string;
}

export function findingFor(rule: Rule, pointer: string, message: string): Finding {
  return { rule: rule.id, severity: rule.severity, pointer, message };
}

/**
 * Rules of raw Pi RPC correlation. The framed module reuses them for the `command`/`response`
 * and extension UI it carries, with pointers one level deeper.
 */
export const PI_RPC_RULES = {
  responseUnknownId: {
    id: 'response-unknown-id',
    severity: 'error',
    summary: 'a response id must echo the id of a command sent earlier on this channel',
  },
  responseAlreadyAnswered: {
    id: 'response-already-answered',
    severity: 'error',
    summary: 'each command gets one response; a second response to the same id answers nothing',
  },
  responseCommandMismatch: {
    id: 'response-command-mismatch',
    severity: 'error',
    summary: "a response's `command` must equal the `type` of the command it answers",
  },
  responseMissingId: {
    id: 'response-missing-id',
    severity: 'error',
    summary: 'a response to a command that carried an id must echo that id',
  },
  responseUnmatched: {
    id: 'response-unmatched',
    severity: 'error',
    summary: 'a response without id must answer an id-less command of the same type that is still in flight',
  },
  responseUncorrelatable: {
    id: 'response-uncorrelatable',
    severity: 'warning',
    summary:
      "a response that names no command a client could match (the daemon's rpc_in_flight_capacity rejection, sent without the command's id); the finding names the command it answers when only one can be the rejected one, else every candidate",
  },
  duplicateCommandId: {
    id: 'duplicate-command-id',
    severity: 'warning',
    summary: 'a command reuses the id of a command still in flight, so the two responses cannot be told apart',
  },
  commandUnanswered: {
    id: 'command-unanswered',
    severity: 'warning',
    summary: 'a command was still waiting for its response when the stream ended cleanly',
  },
  extensionUiUnknownRequest: {
    id: 'extension-ui-unknown-request',
    severity: 'warning',
    summary:
      'an extension_ui_response must answer an extension_ui_request not answered yet: of its channel on stock Pi (which ignores unknown ids), of its session on any connection on the daemon (which refuses them)',
  },
  extensionUiNotDialog: {
    id: 'extension-ui-not-dialog',
    severity: 'warning',
    summary: 'only dialog requests (select, confirm, input, editor) take an answer; fire-and-forget methods expect none',
  },
  extensionUiAnswerShape: {
    id: 'extension-ui-answer-shape',
    severity: 'warning',
    summary: 'confirm is answered with boolean `confirmed`, select/input/editor with string `value`, any dialog with `cancelled: true`',
  },
  extensionUiAckUnexpected: {
    id: 'extension-ui-ack-unexpected',
    severity: 'warning',
    summary: 'the daemon acknowledges each extension_ui_response once; an acknowledgement with no answer outstanding answers nothing',
  },
  bashUpdateUnknownCommand: {
    id: 'bash-update-unknown-command',
    severity: 'warning',
    summary: "a bash_execution_update's `id` must be the id of a `bash` command sent on this channel",
  },
  wrongDirection: {
    id: 'wrong-direction',
    severity: 'error',
    summary: 'commands and extension_ui_response go from client to agent; responses and events from agent to client',
  },
} as const satisfies Record<string, Rule>;
