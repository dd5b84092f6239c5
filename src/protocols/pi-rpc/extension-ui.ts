import type { Finding } from '../../core/finding.js';
import type { DialogBook } from './dialog-book.js';
import { idKey } from './json.js';
import { findingFor, PI_RPC_RULES as R } from './rules.js';

/** Methods that block until the client answers (Pi docs/rpc.md § Extension UI Protocol). */
export const DIALOG_METHODS: readonly string[] = ['select', 'confirm', 'input', 'editor'];

/** Methods that expect no answer. */
export const FIRE_AND_FORGET_METHODS: readonly string[] = ['notify', 'setStatus', 'setWidget', 'setTitle', 'set_editor_text'];

export const EXTENSION_UI_REQUEST = 'extension_ui_request';

/**
 * The extension UI sub-protocol of one channel: `extension_ui_request` events from the agent and
 * the client's `extension_ui_response` answers, matched by `id`. Findings are warnings because
 * the agent refuses or ignores an answer it cannot use; the dialog then waits for its timeout or
 * forever. Requests are looked up in the channel's book (dialog-book.ts): its own on stock Pi, the
 * session's on the daemon, where another connection may have seen the request.
 *
 * On a channel whose answers the daemon acknowledges (framed RPC), an answer settles its request only
 * once the acknowledgement says it was taken: an observer's answer refused with `controller_required`
 * leaves the request open for the controller's.
 */
export class ExtensionUiTracker {
  private readonly open: Map<string, unknown>;
  private readonly closed: Set<string>;
  /** The request id of each answer sent on this channel that waits for its acknowledgement, in order. */
  private readonly awaitingAck: Array<string | undefined> = [];

  constructor(
    private readonly book: DialogBook = { host: 'stdio', open: new Map(), closed: new Set() },
    private readonly settledBy: 'answer' | 'acknowledgement' = 'answer',
  ) {
    this.open = book.open;
    this.closed = book.closed;
  }

  /** Registers an `extension_ui_request` event. */
  request(event: Record<string, unknown>): void {
    const key = idKey(event.id);
    // Every attachment of a daemon session sees the request; one already answered stays answered.
    if (key !== undefined && !this.closed.has(key)) this.open.set(key, event.method);
  }

  /** Checks an `extension_ui_response`; `base` points at the response object inside its message. */
  respond(response: Record<string, unknown>, base: string): Finding[] {
    const key = idKey(response.id);
    if (this.settledBy === 'acknowledgement') this.awaitingAck.push(key);
    if (key === undefined) return [];
    if (!this.open.has(key)) {
      return [
        findingFor(
          R.extensionUiUnknownRequest,
          `${base}/id`,
          this.unknownAnswer(key),
        ),
      ];
    }
    const method = this.open.get(key);
    if (this.settledBy === 'answer') this.settle(key);
    if (typeof method !== 'string' || !DIALOG_METHODS.includes(method)) {
      return [
        findingFor(
          R.extensionUiNotDialog,
          `${base}/id`,
          `extension UI request ${key} is a ${JSON.stringify(method)} request, which expects no answer; only select, confirm, input and editor do`,
        ),
      ];
    }
    return answerShape(method, response, base, key);
  }

  /** The daemon's acknowledgement of this channel's oldest unacknowledged answer (`command: "extension_ui_response"`). */
  acknowledged(ack: Record<string, unknown>): void {
    if (this.settledBy !== 'acknowledgement') return;
    const key = this.awaitingAck.shift();
    if (key !== undefined && ack.success === true) this.settle(key);
  }

  private settle(key: string): void {
    this.open.delete(key);
    this.closed.add(key);
  }

  /** Why an answer to `key` goes nowhere, in the words of the agent on this channel. */
  private unknownAnswer(key: string): string {
    const again = this.closed.has(key);
    if (this.book.host === 'stdio') {
      return again
        ? `extension UI request ${key} was already answered; stock Pi ignores this second answer`
        : `no extension_ui_request with id ${key} was seen on this channel; stock Pi ignores the answer`;
    }
    const where = this.book.session === undefined ? 'this session' : `session ${JSON.stringify(this.book.session)}`;
    return again
      ? `extension UI request ${key} of ${where} was already answered; the daemon refuses this second answer with unknown_ui_request`
      : `no extension_ui_request with id ${key} was issued in ${where} on any connection of this recording; the daemon refuses the answer with unknown_ui_request`;
  }
}

function answerShape(method: string, response: Record<string, unknown>, base: string, key: string): Finding[] {
  if (response.cancelled === true) return [];
  if (method === 'confirm') {
    if (typeof response.confirmed === 'boolean') return [];
    return [findingFor(R.extensionUiAnswerShape, `${base}/confirmed`, `the answer to confirm request ${key} needs a boolean 'confirmed' (or 'cancelled: true')`)];
  }
  if (typeof response.value === 'string') return [];
  return [findingFor(R.extensionUiAnswerShape, `${base}/value`, `the answer to ${method} request ${key} needs a string 'value' (or 'cancelled: true')`)];
}
