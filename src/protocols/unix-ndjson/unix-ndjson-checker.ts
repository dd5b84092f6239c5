import { error, warning, type Finding } from '../../core/finding.js';
import type { InboundMessage, Sender } from '../../core/message.js';
import { unchecked, verdictFrom, type Verdict } from '../../core/verdict.js';
import { isJsonObject } from '../../core/json.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import type { ProtocolChecker } from '../protocol.js';
import { CommandTracker, type PendingCommand } from './command-tracker.js';
import { EventOrder } from './event-order.js';
import { checkFor, OPERATIONS } from './ndjson-schema.js';
import { classifyNdjson, majorVersion, type NdjsonShape } from './ndjson-shape.js';
import { NDJSON_RULES as RULES } from './unix-ndjson-rules.js';

const SENT_BY: Record<NdjsonShape['kind'], Sender | undefined> = { command: 'client', response: 'server', event: 'server', other: undefined };

/**
 * One connection to the Pi daemon's owner-only unix socket. Every line is validated against
 * protocol.schema.json or, for `2.x` lines, protocol-v2.schema.json (each schema accepts only
 * its own major version); then commands are matched with responses, and events are checked
 * against the connection's attachments and their per-session sequence.
 */
export class UnixNdjsonChecker implements ProtocolChecker {
  private readonly commands = new CommandTracker();
  private readonly events = new EventOrder();
  /** Major version the handshake settled on; used for lines whose own version is unreadable. */
  private negotiated?: number;
  private hostInstanceId?: string;

  constructor(private readonly registry: SchemaRegistry) {}

  judge(message: InboundMessage): Verdict {
    const record = (message.value ?? {}) as Record<string, unknown>;
    const shape = classifyNdjson(message.value);
    const behaviour: Finding[] = [];

    const expected = SENT_BY[shape.kind];
    if (expected !== undefined && expected !== message.sender) {
      behaviour.push(error(RULES.unexpectedSender, '', `a ${shape.kind} must come from the ${expected}, but the ${message.sender} sent it`));
    }

    let answered: PendingCommand | undefined;
    if (shape.kind === 'command') behaviour.push(...this.command(shape, record));
    else if (shape.kind === 'response') {
      const result = this.response(shape, record);
      answered = result.command;
      behaviour.push(...result.findings);
    } else if (shape.kind === 'event') {
      behaviour.push(...this.hostInstance(shape.hostInstanceId));
      behaviour.push(...this.events.event(shape.sessionId, shape.generation, shape.sequence));
    }

    const major = majorVersion(record.protocolVersion) ?? answered?.major ?? this.negotiated ?? 1;
    const check = checkFor(this.registry, shape, major);
    if (!check.ok) return unchecked(check.reason, behaviour);
    return verdictFrom([...this.schemaFindings(shape, check.validate, message.value), ...behaviour], check.ref);
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    return this.commands.end(how);
  }

  private command(shape: Extract<NdjsonShape, { kind: 'command' }>, record: Record<string, unknown>): Finding[] {
    if (shape.requestId === undefined) return [];
    const major = majorVersion(record.protocolVersion);
    if (shape.operation === 'handshake' && major !== undefined) this.negotiated ??= major;
    if (shape.operation === 'attach' && shape.sessionId !== undefined && shape.generation !== undefined) {
      this.events.attachSent(shape.sessionId, shape.generation);
    }
    return this.commands.sent({ requestId: shape.requestId, operation: shape.operation, major, sessionId: shape.sessionId, generation: shape.generation });
  }

  private response(shape: Extract<NdjsonShape, { kind: 'response' }>, record: Record<string, unknown>): { command?: PendingCommand; findings: Finding[] } {
    const findings = this.hostInstance(shape.hostInstanceId);
    if (shape.requestId === undefined) return { findings };
    const { command, findings: matched } = this.commands.answer(shape.requestId);
    findings.push(...matched);
    if (!command) return { findings };

    const own = majorVersion(record.protocolVersion);
    if (own !== undefined && command.major !== undefined && own !== command.major) {
      findings.push(
        error(
          RULES.responseVersionMismatch,
          '/protocolVersion',
          `the response to '${command.requestId}' is version ${String(record.protocolVersion)}, but its ${command.operation} command was ${command.major}.x; the daemon answers in the command's version`,
        ),
      );
    }
    const data = (record.data ?? {}) as Record<string, unknown>;
    if (command.operation === 'handshake' && shape.ok === true) this.negotiated = majorVersion(data.protocolVersion) ?? this.negotiated;
    if (command.sessionId !== undefined && command.generation !== undefined) {
      if (command.operation === 'attach') {
        const sequence = typeof data.sequence === 'number' ? data.sequence : undefined;
        this.events.attachAnswered(command.sessionId, command.generation, shape.ok === true, sequence);
      } else if (command.operation === 'detach' && shape.ok === true) {
        this.events.detached(command.sessionId, command.generation);
      }
    }
    return { command, findings };
  }

  /** A connection talks to one daemon incarnation; a restart closes the socket. */
  private hostInstance(id: string | undefined): Finding[] {
    if (id === undefined) return [];
    if (this.hostInstanceId === undefined) this.hostInstanceId = id;
    if (id === this.hostInstanceId) return [];
    return [
      warning(RULES.hostInstanceChanged, '/hostInstanceId', `hostInstanceId '${id}' differs from '${this.hostInstanceId}' seen earlier on this connection; a client must discard records from stale host instances`),
    ];
  }

  private schemaFindings(shape: NdjsonShape, validate: (value: unknown) => Finding[], value: unknown): Finding[] {
    if (shape.kind === 'command' && !OPERATIONS.includes(shape.operation)) {
      // No command $def matches; say so once instead of listing why each of them fails.
      const known = OPERATIONS.map((o) => JSON.stringify(o)).join(', ');
      return [error('schema', '/operation', `/operation: must be one of ${known}`), ...validate(value)];
    }
    if (shape.kind === 'other') {
      if (!isJsonObject(value)) return [error('schema', '', '(root): must be object')];
      if ('kind' in value) return [error('schema', '/kind', '/kind: must be one of "response", "event"')];
      return [error('schema', '', '(root): must be a command (with `operation`), a response or an event (with `kind`)')];
    }
    return validate(value);
  }
}
