import { error, warning, type Finding } from '../../core/finding.js';
import { NDJSON_RULES as RULES } from './unix-ndjson-rules.js';

/** A command sent on this connection and not answered yet. */
export interface PendingCommand {
  requestId: string;
  operation: string;
  /** Major version of the command's protocolVersion, when it had a readable one. */
  major?: number;
  sessionId?: string;
  generation?: number;
}

/**
 * Matches responses to commands by `requestId`, which the protocol requires to be unique on
 * the connection while in flight. Responses may come back in any order (a `wake` waits for its
 * terminal result while `status` answers at once).
 */
export class CommandTracker {
  /** A list per id, so a duplicated id can be answered twice without a cascade of findings. */
  private readonly pending = new Map<string, PendingCommand[]>();
  private readonly answered = new Set<string>();

  sent(command: PendingCommand): Finding[] {
    const open = this.pending.get(command.requestId);
    this.answered.delete(command.requestId);
    if (!open || open.length === 0) {
      this.pending.set(command.requestId, [command]);
      return [];
    }
    open.push(command);
    return [
      error(
        RULES.duplicateRequestId,
        '/requestId',
        `requestId '${command.requestId}' (${command.operation}) is already in flight on this connection (sent for ${open[0].operation}); its responses cannot be told apart`,
      ),
    ];
  }

  answer(requestId: string): { command?: PendingCommand; findings: Finding[] } {
    const open = this.pending.get(requestId);
    if (open && open.length > 0) {
      const command = open.shift()!;
      if (open.length === 0) {
        this.pending.delete(requestId);
        this.answered.add(requestId);
      }
      return { command, findings: [] };
    }
    if (this.answered.has(requestId)) {
      return { findings: [error(RULES.duplicateResponse, '/requestId', `the command with requestId '${requestId}' was already answered`)] };
    }
    return { findings: [error(RULES.unknownRequestId, '/requestId', `requestId '${requestId}' answers no pending command on this connection`)] };
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    const when = how === 'aborted' ? 'before the connection was aborted' : 'before the connection ended';
    return [...this.pending.values()]
      .flat()
      .map((c) => warning(RULES.unansweredCommand, '', `command '${c.requestId}' (${c.operation}) was never answered ${when}`));
  }
}
