import type { Finding } from '../../core/finding.js';
import { idKey } from './json.js';
import { findingFor, PI_RPC_RULES as R } from './rules.js';
import { EXTENSION_UI_RESPONSE } from './command-types.js';

/** The error the daemon answers with when a connection has too many commands in flight. */
export const IN_FLIGHT_CAPACITY_ERROR = 'rpc_in_flight_capacity';

/** The `command` of stock Pi's answer to a line it could not parse; that answer has no id. */
export const PARSE_ERROR_COMMAND = 'parse';

interface InFlight {
  /** Arrival order, so end-of-stream findings list commands as they were sent. */
  order: number;
  id: unknown;
  type: unknown;
  /** Sent while the daemon's in-flight limit was already reached: it will be rejected. */
  overLimit: boolean;
}

/**
 * Which commands of one channel still wait for their response, and which response answers which.
 *
 * Pi correlates by `id` only: a response echoes the command's id and names its type in `command`.
 * A command sent without id gets a response without id, so those are matched by type, oldest first.
 * Two exceptions carry no id and answer nothing we track: stock Pi's parse error
 * (`command: "parse"`, for a line that was not JSON) and the daemon's acknowledgement of an
 * extension_ui_response (`command: "extension_ui_response"`, which only the daemon sends).
 */
export class CommandLedger {
  private readonly byId = new Map<string, InFlight[]>();
  private readonly withoutId: InFlight[] = [];
  private readonly answered = new Set<string>();
  private readonly bashIds = new Set<string>();
  private acksOwed = 0;
  private sent = 0;

  /** How many commands wait for a response. */
  get inFlight(): number {
    let count = this.withoutId.length;
    for (const queue of this.byId.values()) count += queue.length;
    return count;
  }

  /** Registers a command the client sent; `base` is the pointer of the command inside its message. */
  send(command: Record<string, unknown>, base: string, overLimit = false): Finding[] {
    const entry: InFlight = { order: this.sent++, id: command.id, type: command.type, overLimit };
    const key = idKey(command.id);
    if (key === undefined) {
      this.withoutId.push(entry);
      return [];
    }
    if (command.type === 'bash') this.bashIds.add(key);
    const queue = this.byId.get(key);
    if (queue === undefined) {
      this.byId.set(key, [entry]);
      return [];
    }
    queue.push(entry);
    return [
      findingFor(
        R.duplicateCommandId,
        `${base}/id`,
        `command id ${key} is already in flight (sent with type ${describeType(queue[0].type)}); the responses to the two cannot be told apart`,
      ),
    ];
  }

  /** Registers an extension_ui_response the client sent; the daemon acknowledges each one. */
  expectAcknowledgement(): void {
    this.acksOwed += 1;
  }

  /** Whether `id` is the id of a `bash` command sent on this channel. */
  knowsBash(id: unknown): boolean {
    const key = idKey(id);
    return key !== undefined && this.bashIds.has(key);
  }

  /** Matches a response (`type: "response"`) to the command it answers; `base` points at the response. */
  answer(response: Record<string, unknown>, base: string): Finding[] {
    const command = response.command;
    const key = idKey(response.id);
    if (command === EXTENSION_UI_RESPONSE) return this.acknowledgement(base);
    if (key !== undefined) return this.answerById(key, command, base);
    if (command === PARSE_ERROR_COMMAND) return [];
    if (response.error === IN_FLIGHT_CAPACITY_ERROR) return this.capacityRejection(command, base);
    const index = this.withoutId.findIndex((entry) => entry.type === command);
    if (index >= 0) {
      this.withoutId.splice(index, 1);
      return [];
    }
    for (const [idOfCommand, queue] of this.byId) {
      const found = queue.findIndex((entry) => entry.type === command);
      if (found < 0) continue;
      this.take(idOfCommand, found);
      return [
        findingFor(
          R.responseMissingId,
          base,
          `the response to command ${describeType(command)} carries no id, but the command was sent with id ${idOfCommand}`,
        ),
      ];
    }
    return [
      findingFor(
        R.responseUnmatched,
        `${base}/command`,
        `the response has no id and no command of type ${describeType(command)} without id is in flight, so it answers nothing`,
      ),
    ];
  }

  /** Findings for the commands still in flight when a stream ended cleanly. */
  unanswered(base = ''): Finding[] {
    const pending = [...this.withoutId, ...[...this.byId.values()].flat()].sort((a, b) => a.order - b.order);
    return pending.map((entry) =>
      findingFor(
        R.commandUnanswered,
        base,
        entry.id === undefined
          ? `command ${describeType(entry.type)} (sent without id) never got a response`
          : `command ${describeType(entry.type)} with id ${JSON.stringify(entry.id)} never got a response`,
      ),
    );
  }

  private answerById(key: string, command: unknown, base: string): Finding[] {
    const queue = this.byId.get(key);
    if (queue === undefined || queue.length === 0) {
      if (this.answered.has(key)) {
        return [findingFor(R.responseAlreadyAnswered, `${base}/id`, `command id ${key} was already answered; this second response answers nothing`)];
      }
      return [findingFor(R.responseUnknownId, `${base}/id`, `no command with id ${key} was sent on this channel, so the response answers nothing`)];
    }
    const entry = this.take(key, 0);
    if (typeof entry.type === 'string' && typeof command === 'string' && entry.type !== command) {
      return [
        findingFor(
          R.responseCommandMismatch,
          `${base}/command`,
          `the response to id ${key} names command ${describeType(command)}, but that id was sent with type ${describeType(entry.type)}`,
        ),
      ];
    }
    return [];
  }

  private acknowledgement(base: string): Finding[] {
    if (this.acksOwed > 0) {
      this.acksOwed -= 1;
      return [];
    }
    return [
      findingFor(
        R.extensionUiAckUnexpected,
        `${base}/command`,
        'an extension_ui_response acknowledgement arrived, but every extension_ui_response sent on this channel was already acknowledged',
      ),
    ];
  }

  private take(key: string, index: number): InFlight {
    const queue = this.byId.get(key)!;
    const [entry] = queue.splice(index, 1);
    if (queue.length === 0) this.byId.delete(key);
    this.answered.add(key);
    return entry;
  }

  /**
   * The daemon's rejection of a framed command over its in-flight limit names neither the command's
   * id nor its type (its `deniedResponse` reads them off the frame, not the command), so no client can
   * tell which command failed: a daemon bug worth a warning. It most likely answers the oldest command
   * sent over the limit; failing that (the daemon's limit is not the one we assumed), the one sent last,
   * as the daemon rejects at once. That one is taken as answered.
   */
  private capacityRejection(command: unknown, base: string): Finding[] {
    const overLimit = this.pick((entry) => entry.overLimit, 'oldest');
    const likely = overLimit ?? this.pick(() => true, 'newest');
    if (likely === undefined) {
      return [findingFor(R.responseUncorrelatable, base, `the ${IN_FLIGHT_CAPACITY_ERROR} rejection carries no id and no command is in flight, so it answers nothing`)];
    }
    const { entry } = likely;
    if (likely.key === undefined) this.withoutId.splice(likely.index, 1);
    else this.take(likely.key, likely.index);
    const which = entry.id === undefined ? `command ${describeType(entry.type)} (sent without id)` : `command ${describeType(entry.type)} with id ${JSON.stringify(entry.id)}`;
    const why = overLimit ? 'the oldest sent over the in-flight limit' : 'the last one sent';
    return [
      findingFor(
        R.responseUncorrelatable,
        base,
        `the ${IN_FLIGHT_CAPACITY_ERROR} rejection names command ${describeType(command)} and carries no id${entry.id === undefined ? '' : ' although the command had one'}, so the client cannot tell which command failed; it most likely answers ${which}, ${why}`,
      ),
    ];
  }

  /** The oldest (or newest) in-flight command that passes `test`, and where it is queued. */
  private pick(test: (entry: InFlight) => boolean, which: 'oldest' | 'newest'): { entry: InFlight; key?: string; index: number } | undefined {
    let found: { entry: InFlight; key?: string; index: number } | undefined;
    const better = (entry: InFlight) => test(entry) && (found === undefined || (which === 'oldest' ? entry.order < found.entry.order : entry.order > found.entry.order));
    this.withoutId.forEach((entry, index) => {
      if (better(entry)) found = { entry, index };
    });
    for (const [key, queue] of this.byId) {
      queue.forEach((entry, index) => {
        if (better(entry)) found = { entry, key, index };
      });
    }
    return found;
  }
}

function describeType(type: unknown): string {
  return typeof type === 'string' ? `'${type}'` : JSON.stringify(type) ?? 'undefined';
}
