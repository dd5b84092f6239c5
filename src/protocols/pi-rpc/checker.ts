import type { Finding } from '../../core/finding.js';
import type { InboundMessage } from '../../core/message.js';
import type { Verdict } from '../../core/verdict.js';
import type { CheckerContext, ProtocolChecker } from '../protocol.js';
import { CommandLedger } from './command-ledger.js';
import { EXTENSION_UI_RESPONSE, isPiRpcCommandType } from './command-types.js';
import { dialogBookFor } from './dialog-book.js';
import { EXTENSION_UI_REQUEST, ExtensionUiTracker } from './extension-ui.js';
import { isJsonObject } from '../../core/json.js';
import { findingFor, PI_RPC_RULES as R } from './rules.js';
import { rawSchemaRef } from './schema-refs.js';
import { schemaVerdict } from './schema-verdict.js';

/**
 * One raw Pi RPC channel: a `pi --mode rpc` stdio session or a daemon `pi-rpc.v1` WebSocket.
 * Client lines are commands or extension UI answers; server lines are responses or events.
 */
export class PiRpcChecker implements ProtocolChecker {
  private readonly commands = new CommandLedger();
  private readonly dialogs: ExtensionUiTracker;

  constructor(private readonly context: CheckerContext) {
    this.dialogs = new ExtensionUiTracker(dialogBookFor(context));
  }

  judge(message: InboundMessage): Verdict {
    const value = message.value;
    const behaviour = !isJsonObject(value) ? [] : message.sender === 'client' ? this.fromClient(value) : this.fromServer(value);
    return schemaVerdict(this.context.registry, rawSchemaRef(value, message.sender), value, behaviour);
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    // A cut stream leaves commands unanswered by definition; only a clean end says something.
    return how === 'complete' ? this.commands.unanswered() : [];
  }

  private fromClient(value: Record<string, unknown>): Finding[] {
    if (value.type === EXTENSION_UI_RESPONSE) {
      this.commands.expectAcknowledgement();
      return this.dialogs.respond(value, '');
    }
    return this.commands.send(value, '');
  }

  private fromServer(value: Record<string, unknown>): Finding[] {
    const type = value.type;
    if (type === 'response') return this.commands.answer(value, '');
    if (isPiRpcCommandType(type) || type === EXTENSION_UI_RESPONSE) {
      // piRpcEvent accepts any type but "response", so only this rule catches a client message
      // coming back from the agent.
      return [findingFor(R.wrongDirection, '/type', `'${type}' is a client message, but the agent sent it`)];
    }
    if (type === EXTENSION_UI_REQUEST) this.dialogs.request(value);
    if (type === 'bash_execution_update' && value.id !== undefined && !this.commands.knowsBash(value.id)) {
      return [
        findingFor(
          R.bashUpdateUnknownCommand,
          '/id',
          `bash_execution_update names id ${JSON.stringify(value.id)}, but no bash command with that id was sent on this channel`,
        ),
      ];
    }
    return [];
  }
}
