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
  /**
   * Sent while this channel counted the daemon's in-flight limit or more commands unanswered. The
   * count is an upper bound of the daemon's own (it frees a slot when it answers, before this proxy
   * sees the answer), so only such a command can have been rejected for capacity.
   */
  overLimit: boolean;
  /** Open capacity rejections that may be this command's answer. */
  maybeRejectedBy: Set<CapacityRejection>;
}

/** An id-less rpc_in_flight_capacity rejection that answers one of two or more commands, not yet known which. */
interface CapacityRejection {
  candidates: Set<InFlight>;
}

/**
 * Which commands of one channel still wait for their response, and which response answers which.
 *
 * Pi correlates by `id` only: a response echoes the command's id and names its type in `command`.
 * A command sent without id gets a response without id, so those are matched by type, oldest first.
 * Two exceptions carry no id and answer nothing we track: stock Pi's parse error
 * (`command: "parse"`, for a line that was not JSON) and the daemon's acknowledgement of an
 * extension_ui_response (`command: "extension_ui_response"`, which only the daemon sends).
 * A third, the daemon's rpc_in_flight_capacity rejection of a framed command, answers a command
 * without naming it: see `capacityRejection`.
 */
export class CommandLedger {
  private readonly byId = new Map<string, InFlight[]>();
  private readonly withoutId: InFlight[] = [];
  private readonly answered = new Set<string>();
  /** Ids taken as rejected for capacity because no other command could have been: no response has named them. */
  private readonly rejectedUnnamed = new Set<string>();
  private readonly openRejections = new Set<CapacityRejection>();
  private readonly bashIds = new Set<string>();
  private acksOwed = 0;
  private sent = 0;
  /** The latest-sent command a response has answered, by id or type; -1 before any. */
  private latestAnswered = -1;

  /**
   * How many commands wait for a response. Each open capacity rejection has answered one of its
   * candidates, which still sit in the ledger.
   */
  get inFlight(): number {
    let count = this.withoutId.length;
    for (const queue of this.byId.values()) count += queue.length;
    // Never below zero, even when the daemon rejected more frames than were in flight.
    return Math.max(0, count - this.openRejections.size);
  }

  /** Registers a command the client sent; `base` is the pointer of the command inside its message. */
  send(command: Record<string, unknown>, base: string, overLimit = false): Finding[] {
    const entry: InFlight = { order: this.sent++, id: command.id, type: command.type, overLimit, maybeRejectedBy: new Set() };
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

  /** Whether `response` is the daemon's rejection of a frame over its in-flight limit. */
  static isCapacityRejection(response: Record<string, unknown>): boolean {
    return response.error === IN_FLIGHT_CAPACITY_ERROR;
  }

  /** Matches a response (`type: "response"`) to the command it answers; `base` points at the response. */
  answer(response: Record<string, unknown>, base: string): Finding[] {
    const command = response.command;
    const key = idKey(response.id);
    if (command === EXTENSION_UI_RESPONSE) return this.acknowledgement(base);
    if (key !== undefined) return this.answerById(key, command, base);
    if (command === PARSE_ERROR_COMMAND) return [];
    if (CommandLedger.isCapacityRejection(response)) return this.capacityRejection(command, base);
    const index = this.withoutId.findIndex((entry) => entry.type === command);
    if (index >= 0) {
      this.settle(this.withoutId[index], true);
      return [];
    }
    for (const [idOfCommand, queue] of this.byId) {
      const found = queue.find((entry) => entry.type === command);
      if (found === undefined) continue;
      this.settle(found, true);
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

  /**
   * Findings for the commands still in flight when a stream ended cleanly. A candidate of an open
   * capacity rejection is not one of them: it may be the command the daemon rejected.
   */
  unanswered(base = ''): Finding[] {
    const pending = this.pending().filter((entry) => entry.maybeRejectedBy.size === 0);
    return pending.map((entry) => findingFor(R.commandUnanswered, base, `${describeCommand(entry)} never got a response`));
  }

  private answerById(key: string, command: unknown, base: string): Finding[] {
    const queue = this.byId.get(key);
    if (queue === undefined || queue.length === 0) {
      if (this.rejectedUnnamed.delete(key)) {
        // Taken as the one an id-less capacity rejection answered, but its own answer came after all:
        // it has no answer that named it yet, so this one is its first.
        this.answered.add(key);
        return [];
      }
      if (this.answered.has(key)) {
        return [findingFor(R.responseAlreadyAnswered, `${base}/id`, `command id ${key} was already answered; this second response answers nothing`)];
      }
      return [findingFor(R.responseUnknownId, `${base}/id`, `no command with id ${key} was sent on this channel, so the response answers nothing`)];
    }
    const entry = queue[0];
    this.settle(entry, true);
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

  /**
   * `entry` got its answer: it leaves the ledger. `named`: the answer named it (by id or type), so
   * it is no candidate of a capacity rejection any more, and a rejection left with one candidate
   * answered that one.
   */
  private settle(entry: InFlight, named: boolean): void {
    const key = idKey(entry.id);
    if (key === undefined) {
      this.withoutId.splice(this.withoutId.indexOf(entry), 1);
    } else {
      const queue = this.byId.get(key)!;
      queue.splice(queue.indexOf(entry), 1);
      if (queue.length === 0) this.byId.delete(key);
      (named ? this.answered : this.rejectedUnnamed).add(key);
    }
    if (named) this.latestAnswered = Math.max(this.latestAnswered, entry.order);
    const rejections = [...entry.maybeRejectedBy];
    entry.maybeRejectedBy.clear();
    for (const rejection of rejections) {
      rejection.candidates.delete(entry);
      if (rejection.candidates.size > 1) continue;
      // One candidate left: the rejection answered it. None (two rejections shared their candidates
      // and the other took the last one): the daemon's answers contradict the choice, so drop it.
      this.openRejections.delete(rejection);
      const [last] = rejection.candidates;
      if (last === undefined) continue;
      last.maybeRejectedBy.delete(rejection);
      this.settle(last, false);
    }
  }

  /**
   * The daemon's rejection of a framed command over its in-flight limit names neither the command's
   * id nor its type (its `deniedResponse` reads them off the frame, not the command), so no client can
   * tell which command failed: a daemon bug worth a warning. Which commands it can answer is read from
   * what the daemon said, not from this proxy's count alone:
   * - one still unanswered, sent after every command answered before the rejection (the daemon rejects
   *   a frame as it arrives, so it answers nothing it received later before the rejection);
   * - among those, one sent over the limit as this channel counted (see `InFlight.overLimit`), unless
   *   none was (the daemon's limit is not the one assumed).
   * Exactly one candidate: it is the rejected command. Several: the warning names them, none is taken
   * as answered, and each later answer that names one of them narrows the choice.
   */
  private capacityRejection(command: unknown, base: string): Finding[] {
    const pending = this.pending();
    const after = pending.filter((entry) => entry.order > this.latestAnswered);
    const pool = after.length > 0 ? after : pending;
    const overLimit = pool.filter((entry) => entry.overLimit);
    const candidates = overLimit.length > 0 ? overLimit : pool;
    const unnamed = `the ${IN_FLIGHT_CAPACITY_ERROR} rejection names command ${describeType(command)} and carries no id`;
    if (candidates.length === 0) {
      return [findingFor(R.responseUncorrelatable, base, `${unnamed} and no command is in flight, so it answers nothing`)];
    }
    if (candidates.length === 1) {
      const [entry] = candidates;
      this.settle(entry, false);
      return [
        findingFor(
          R.responseUncorrelatable,
          base,
          `${unnamed}${entry.id === undefined ? '' : ' although the command had one'}, so a client cannot tell which command failed; it answers ${describeCommand(entry)}, the only one the daemon can have rejected`,
        ),
      ];
    }
    const rejection: CapacityRejection = { candidates: new Set(candidates) };
    this.openRejections.add(rejection);
    for (const entry of candidates) entry.maybeRejectedBy.add(rejection);
    return [
      findingFor(
        R.responseUncorrelatable,
        base,
        `${unnamed}, so a client cannot tell which command failed; it answers one of ${candidates.length} commands the daemon can have rejected: ${candidates.map(describeCommand).join(', ')}`,
      ),
    ];
  }

  /** Every command in flight, in the order it was sent. */
  private pending(): InFlight[] {
    return [...this.withoutId, ...[...this.byId.values()].flat()].sort((a, b) => a.order - b.order);
  }
}

function describeCommand(entry: InFlight): string {
  return entry.id === undefined ? `command ${describeType(entry.type)} (sent without id)` : `command ${describeType(entry.type)} with id ${JSON.stringify(entry.id)}`;
}

function describeType(type: unknown): string {
  return typeof type === 'string' ? `'${type}'` : JSON.stringify(type) ?? 'undefined';
}
