import type { Finding } from '../../core/finding.js';
import type { InboundMessage, Sender } from '../../core/message.js';
import type { Verdict } from '../../core/verdict.js';
import type { CheckerContext, ProtocolChecker } from '../protocol.js';
import { CommandLedger, IN_FLIGHT_CAPACITY_ERROR } from '../pi-rpc/command-ledger.js';
import { EXTENSION_UI_RESPONSE, isPiRpcCommandType } from '../pi-rpc/command-types.js';
import { dialogBookFor } from '../pi-rpc/dialog-book.js';
import { EXTENSION_UI_REQUEST, ExtensionUiTracker } from '../pi-rpc/extension-ui.js';
import { isJsonObject } from '../../core/json.js';
import { findingFor, PI_RPC_RULES } from '../pi-rpc/rules.js';
import { schemaVerdict } from '../pi-rpc/schema-verdict.js';
import { AttachOrder } from './attach-order.js';
import { checkServerControl } from './control-frames.js';
import { EventSequence } from './event-sequence.js';
import { allowedSenders, frameKindOf, frameRef, SESSION_RPC_FRAME_REF, type FrameKind } from './frame-kinds.js';
import { PI_DAEMON_RPC_RULES as R } from './rules.js';
import { TreeNavigations } from './tree-navigation.js';

/**
 * One framed `pi-daemon-rpc.v1` connection. Each frame is validated against the `$def` of its
 * kind (not the `sessionRpcFrame` oneOf, whose errors list all nine branches), then checked
 * against the connection's state: the attach handshake, event sequence, command/response
 * correlation, tree navigation, the in-flight limit (as the daemon's rejections show it), and
 * extension UI answers.
 */
export class PiDaemonRpcChecker implements ProtocolChecker {
  private readonly attach = new AttachOrder();
  private readonly events = new EventSequence();
  private readonly commands = new CommandLedger();
  private readonly dialogs: ExtensionUiTracker;
  private readonly navigations = new TreeNavigations();

  constructor(
    private readonly context: CheckerContext,
    private readonly maxInFlight: number,
  ) {
    this.dialogs = new ExtensionUiTracker(dialogBookFor(context, 'daemon'), 'acknowledgement');
  }

  judge(message: InboundMessage): Verdict {
    const value = message.value;
    const kind = frameKindOf(value);
    if (kind === undefined) return this.unknownKind(value);
    const frame = value as Record<string, unknown>;
    const senders = allowedSenders(kind, frame);
    const behaviour = senders.includes(message.sender)
      ? message.sender === 'client'
        ? this.fromClient(kind, frame)
        : this.fromServer(kind, frame)
      : [wrongDirection(kind, frame, message.sender)];
    return schemaVerdict(this.context.registry, frameRef(kind), value, behaviour);
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    if (how === 'aborted') return [];
    return [...this.attach.end(), ...this.commands.unanswered(), ...this.navigations.unanswered()];
  }

  private unknownKind(value: unknown): Verdict {
    const hasKind = isJsonObject(value) && 'kind' in value;
    const finding = findingFor(
      R.unknownFrameKind,
      hasKind ? '/kind' : '',
      hasKind
        ? `unknown frame kind ${JSON.stringify(value.kind)}; a frame is one of command, extension_ui_response, control, tree_navigate, attach_ready, response, event, replay_gap, tree_navigate_result`
        : 'a frame must be a JSON object with a string `kind`',
    );
    // The union is the context: the verdict names it, and a value that is not even an object
    // keeps its "must be object". For an object every branch fails on `kind` and then lists its
    // own required properties, nine branches deep; the finding above says all of that in one line.
    return schemaVerdict(this.context.registry, SESSION_RPC_FRAME_REF, value, [finding], () => !isJsonObject(value));
  }

  private fromClient(kind: FrameKind, frame: Record<string, unknown>): Finding[] {
    const findings: Finding[] = [];
    // Only a hint for a later id-less rejection: the daemon frees a slot when it answers, before this
    // proxy sees the answer, so this count can pass the limit while the daemon's does not.
    const overLimit = this.commands.inFlight >= this.maxInFlight;
    if (kind === 'command' && isJsonObject(frame.command)) findings.push(...this.commands.send(frame.command, '/command', overLimit));
    if (kind === 'extension_ui_response' && isJsonObject(frame.response)) {
      this.commands.expectAcknowledgement();
      findings.push(...this.dialogs.respond(frame.response, '/response'));
    }
    if (kind === 'tree_navigate') findings.push(...this.navigations.request(frame));
    return findings;
  }

  private fromServer(kind: FrameKind, frame: Record<string, unknown>): Finding[] {
    const findings = this.attach.serverFrame(kind, frame);
    if (kind === 'response' && isJsonObject(frame.response)) findings.push(...this.response(frame.response));
    if (kind === 'event') findings.push(...this.events.next(frame.sequence, '/sequence'), ...this.event(frame.event));
    if (kind === 'tree_navigate_result') findings.push(...this.navigations.result(frame));
    if (kind === 'control') findings.push(...checkServerControl(frame, this.attach.connectionId));
    return findings;
  }

  private response(response: Record<string, unknown>): Finding[] {
    if (response.command === EXTENSION_UI_RESPONSE) this.dialogs.acknowledged(response);
    const findings = this.commands.answer(response, '/response');
    // The client overran the limit when the daemon says so, not when this proxy's count does.
    if (CommandLedger.isCapacityRejection(response)) findings.unshift(this.limitExceeded());
    return findings;
  }

  private limitExceeded(): Finding {
    return findingFor(
      R.inFlightLimitExceeded,
      '/response/error',
      `the daemon rejected a frame with ${IN_FLIGHT_CAPACITY_ERROR}: the client sent it while maxInFlightCommandsPerConnection (taken as ${this.maxInFlight}) commands were unanswered on this connection`,
    );
  }

  private event(event: unknown): Finding[] {
    if (!isJsonObject(event)) return [];
    if (isPiRpcCommandType(event.type) || event.type === EXTENSION_UI_RESPONSE) {
      return [findingFor(PI_RPC_RULES.wrongDirection, '/event/type', `'${String(event.type)}' is a client message, but the daemon sent it as an event`)];
    }
    // Events are broadcast to every attachment, so the request is visible here even when
    // another connection's prompt raised it; bash_execution_update is not checked for the same reason.
    if (event.type === EXTENSION_UI_REQUEST) this.dialogs.request(event);
    return [];
  }
}

function wrongDirection(kind: FrameKind, frame: Record<string, unknown>, sender: Sender): Finding {
  const what = kind === 'control' ? `a control frame with action '${String(frame.action)}'` : `a '${kind}' frame`;
  const actual = sender === 'client' ? 'the client' : 'the daemon';
  const expected = sender === 'client' ? 'the daemon' : 'the client';
  return findingFor(R.wrongDirection, kind === 'control' ? '/action' : '/kind', `${actual} sent ${what}, which only ${expected} sends`);
}
