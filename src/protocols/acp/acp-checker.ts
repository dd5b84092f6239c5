import { warning, type Finding } from '../../core/finding.js';
import { isJsonObject } from '../../core/json.js';
import type { InboundMessage, Sender } from '../../core/message.js';
import { unchecked, verdictFrom, type Verdict } from '../../core/verdict.js';
import { PI_SESSION_API_ID } from '../pi-rest/schemas.js';
import { ACP_SCHEMA_ID } from './schemas.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import { classifyJsonRpc, JsonRpcCorrelator, type PendingRequest } from '../json-rpc/index.js';
import type { ProtocolChecker } from '../protocol.js';
import { ACP_RULES } from './acp-rules.js';
import { senderFor, type AcpDefRef, type AcpMethodTable } from './method-table.js';
import { SchemaPass } from './schema-pass.js';

const SIDE_NAMES: Record<Sender, string> = { client: 'client', server: 'agent' };

/**
 * One ACP connection (a `/apc` WebSocket or a stdio pair). Each message is checked against the
 * Pi session API's `jsonRpcMessage` envelope, then against the ACP `$def` for its method:
 * request params, the result of the request a response answers, or notification params.
 * The ACP schema's root alone is too loose for that: its `params` is an `anyOf` over every
 * method, so `session/prompt` without `prompt` passes it.
 * Extension (`_…`) and unknown methods get the envelope check only; their peer answers -32601.
 */
export class AcpChecker implements ProtocolChecker {
  private readonly correlator = new JsonRpcCorrelator({ names: SIDE_NAMES });
  private fallbackNoted = false;

  constructor(
    private readonly registry: SchemaRegistry,
    private readonly methods: AcpMethodTable,
  ) {}

  judge(message: InboundMessage): Verdict {
    const value = message.value;
    const record = isJsonObject(value) ? value : {};
    const shape = classifyJsonRpc(value);
    const pass = new SchemaPass();
    const behaviour: Finding[] = [];

    this.checkEnvelope(value, pass, behaviour);
    const { findings, answers } = this.correlator.observe(message.sender, shape);
    behaviour.push(...findings);

    if (shape.kind === 'request' || shape.kind === 'notification') {
      const method = this.methods.get(shape.method);
      const same = shape.kind === 'request' ? method?.request : method?.notification;
      const other = shape.kind === 'request' ? method?.notification : method?.request;
      // A method called as the wrong kind still has its params checked by the $def it has.
      const def = same ?? other;
      if (def) {
        this.checkMember(def, record, 'params', pass);
        behaviour.push(...this.direction(shape.kind, shape.method, def, message.sender));
      }
      if (!same && other) behaviour.push(wrongKind(shape.kind, shape.method));
    } else if (shape.kind === 'response') {
      if (shape.hasError) pass.run(this.registry.def(ACP_SCHEMA_ID, 'Error'), record.error, '/error');
      if (shape.hasResult) this.checkResult(answers, record, pass);
    }

    const all = [...pass.findings, ...behaviour];
    if (!pass.ran) return unchecked(pass.reasons.join('; ') || 'no schema applies to this message', all);
    return verdictFrom(all, pass.ref);
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    return this.correlator.end(how);
  }

  private checkEnvelope(value: unknown, pass: SchemaPass, behaviour: Finding[]): void {
    const envelope = this.registry.def(PI_SESSION_API_ID, 'jsonRpcMessage');
    if (pass.run(envelope, value)) return;
    // The project always ships the session API schema, so this is for registries built
    // without it: the ACP schema's own root is a JSON-RPC envelope too, only looser.
    if (pass.run(this.registry.check(ACP_SCHEMA_ID), value) && !this.fallbackNoted && !envelope.ok) {
      this.fallbackNoted = true;
      behaviour.push(
        warning(ACP_RULES.envelopeFallback, '', `the JSON-RPC envelope was checked against the ACP schema's root, because ${envelope.reason}`),
      );
    }
  }

  private checkResult(answers: PendingRequest | undefined, record: Record<string, unknown>, pass: SchemaPass): void {
    // Which method a result belongs to is known only from the request it answers.
    const def = answers ? this.methods.get(answers.method)?.response : undefined;
    if (def) this.checkMember(def, record, 'result', pass);
  }

  private checkMember(def: AcpDefRef, record: Record<string, unknown>, member: 'params' | 'result', pass: SchemaPass): void {
    const present = member in record;
    // JSON-RPC lets a request omit `params`; it then has to satisfy the method's $def as `{}`.
    pass.run(this.registry.def(ACP_SCHEMA_ID, def.def), present ? record[member] : {}, `/${member}`, present ? '' : ` (absent, checked as {})`);
  }

  private direction(kind: 'request' | 'notification', method: string, def: AcpDefRef, sender: Sender): Finding[] {
    const expected = senderFor(def.side);
    if (expected === undefined || expected === sender) return [];
    return [
      warning(
        ACP_RULES.wrongDirection,
        '/method',
        `'${method}' is a ${kind} the ${def.side} handles, so only the ${SIDE_NAMES[expected]} may send it; the ${SIDE_NAMES[sender]} sent it`,
      ),
    ];
  }
}

function wrongKind(kind: 'request' | 'notification', method: string): Finding {
  // The ACP SDKs route requests and notifications to separate handler tables, so the peer
  // answers -32601 (or drops the notification) although the method exists.
  return kind === 'request'
    ? warning(ACP_RULES.wrongKind, '/id', `'${method}' is a notification in ACP, but this message has an id, which makes it a request`)
    : warning(ACP_RULES.wrongKind, '', `'${method}' is a request in ACP, but this message has no id, which makes it a notification no one answers`);
}
