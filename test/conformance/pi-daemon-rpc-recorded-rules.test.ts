import { describeWithCorpus, sharedPath, testRegistry } from '../support/shared.js';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import type { Finding } from '../../src/core/finding.js';
import type { ProtocolModule } from '../../src/protocols/protocol.js';
import { piDaemonRpcProtocol } from '../../src/protocols/pi-daemon-rpc/index.js';
import { piRpcProtocol } from '../../src/protocols/pi-rpc/index.js';
import { Conversation } from '../protocols/pi-rpc/conversation.js';

/**
 * The correlation rules re-judged over the RPC connections of real pi-daemon v0.3.0 recordings
 * (../shared/fixtures/pi-daemon/recorded): every answer the daemon gave is the first for its command,
 * and the in-flight limit is reported where the daemon rejected a frame for it, and only there.
 * ex1 holds a burst of 12 get_state commands, the 12th rejected with rpc_in_flight_capacity.
 */

const MODULES: Record<string, ProtocolModule> = { 'pi-daemon-rpc': piDaemonRpcProtocol, 'pi-rpc': piRpcProtocol };

interface Judged {
  file: string;
  exchange: number;
  /** What each text message got, in seq order, with whether it is a capacity rejection. */
  messages: Array<{ seq: number; rejection: boolean; findings: Finding[] }>;
  atEnd: Finding[];
}

function judgeRecording(file: string): Judged[] {
  const records = readFileSync(sharedPath('fixtures', 'pi-daemon', 'recorded', file), 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));
  const registry = testRegistry();
  return records
    .filter((r) => r.type === 'exchange' && r.transport === 'ws' && MODULES[r.protocol] !== undefined)
    .map((exchange) => {
      const conversation = new Conversation(MODULES[exchange.protocol], registry);
      const messages = records
        .filter((r) => r.type === 'message' && r.exchange === exchange.id && r.channel === 'text')
        .sort((a, b) => a.seq - b.seq)
        .map((m) => {
          const response = m.json?.kind === 'response' ? m.json.response : m.json;
          return { seq: m.seq, rejection: response?.error === 'rpc_in_flight_capacity', findings: conversation.send(m.sender, m.json).findings };
        });
      return { file, exchange: exchange.id, messages, atEnd: conversation.end(exchange.outcome === 'complete' ? 'complete' : 'aborted') };
    });
}

const rules = (judged: Judged[], rule: string) =>
  judged.flatMap((j) => [
    ...j.messages.flatMap((m) => m.findings.filter((f) => f.rule === rule).map((f) => ({ file: j.file, exchange: j.exchange, seq: m.seq, rejection: m.rejection, message: f.message }))),
    ...j.atEnd.filter((f) => f.rule === rule).map((f) => ({ file: j.file, exchange: j.exchange, seq: 'end', rejection: false, message: f.message })),
  ]);

describeWithCorpus('pi-daemon RPC correlation rules on real recordings', () => {
  const judged = () => ['ex1.ndjson', 'run1.ndjson', 'run2.ndjson'].flatMap(judgeRecording);

  it('no response is a second answer, no command is left unanswered, and the limit is reported only on the daemon\'s rejection', () => {
    const all = judged();
    expect(all.length).toBeGreaterThan(10);
    expect(rules(all, 'response-already-answered')).toEqual([]);
    expect(rules(all, 'command-unanswered')).toEqual([]);
    const limit = rules(all, 'in-flight-limit-exceeded');
    expect(limit).toEqual([expect.objectContaining({ file: 'ex1.ndjson', exchange: 2, rejection: true })]);
  });

  it("ex1's burst: the id-less rejection answers the 12th command, the only one the daemon can have rejected", () => {
    const [burst] = judgeRecording('ex1.ndjson').filter((j) => j.exchange === 2);
    const rejection = burst.messages.find((m) => m.rejection)!;
    expect(rejection.findings.map((f) => f.rule)).toEqual(['in-flight-limit-exceeded', 'response-uncorrelatable']);
    expect(rejection.findings[1].message).toContain(`it answers command 'get_state' with id "x-burst-11", the only one the daemon can have rejected`);
  });
});
