import { error, type Finding } from '../../core/finding.js';
import type { InboundMessage } from '../../core/message.js';
import { verdictFrom, type Verdict } from '../../core/verdict.js';
import type { ProtocolChecker } from '../protocol.js';
import { envelopeFindings } from './json-rpc-envelope.js';
import { JsonRpcCorrelator } from './json-rpc-correlator.js';
import { classifyJsonRpc } from './json-rpc-message.js';
import { JSON_RPC_RULES as RULES } from './json-rpc-rules.js';

/**
 * One connection of plain JSON-RPC 2.0 (a WebSocket, a stdio pair) whose methods no protocol module
 * knows, MCP over stdio among them: judged by JSON-RPC's own rules only, each message's envelope and
 * the correlation of responses with requests. What the methods mean is not checked.
 */
export class JsonRpcChecker implements ProtocolChecker {
  private readonly correlator = new JsonRpcCorrelator();

  judge(message: InboundMessage): Verdict {
    const { value } = message;
    if (value === undefined) {
      return verdictFrom([error(RULES.notAnObject, '', `a JSON-RPC message is JSON text; this is not (${message.parseError ?? 'not parsed'})`)]);
    }
    if (!Array.isArray(value)) return verdictFrom(this.one(message, value, ''));
    // A batch (§6): its members are judged one by one.
    if (value.length === 0) return verdictFrom([error(RULES.emptyBatch, '', 'a batch must hold at least one message')]);
    return verdictFrom(value.flatMap((member, i) => this.one(message, member, `/${i}`)));
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    return this.correlator.end(how);
  }

  private one(message: InboundMessage, value: unknown, at: string): Finding[] {
    const findings = envelopeFindings(value, at);
    const correlated = this.correlator.observe(message.sender, classifyJsonRpc(value)).findings;
    // The correlator's pointers are the message's own; inside a batch they are the member's.
    return [...findings, ...correlated.map((f) => (at === '' ? f : { ...f, pointer: at + f.pointer }))];
  }
}
