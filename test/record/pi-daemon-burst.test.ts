/**
 * `proxy record` in front of a burst of framed RPC commands on one connection, as a client that does
 * not wait for answers sends them. The daemon counts a command in flight when it receives it and frees
 * the slot when it answers; the proxy sees both directions with its own timing, so its count runs
 * ahead of the daemon's. The stand-in answers in a scripted order (RpcCommandScript) and the client
 * writes its commands in one go, so the proxy sees them all before any answer: the race of the real
 * daemon, every run the same. The verdicts must follow what the daemon said.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRow, RecordingReader } from '../../src/store/recording-reader.js';
import type { FindingListRow } from '../../src/store/store-types.js';
import type { RpcCommandScript } from '../support/pi-daemon-standin.js';
import { sendTogether } from '../support/ws-client.js';
import { bearer, daemon, record, useCleanups, wsExchanges, wsOpen } from './pi-helpers.js';

useCleanups();

const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `burst-${from + i}`);
const commandFrame = (id: string) => JSON.stringify({ kind: 'command', command: { id, type: 'get_state' } });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

interface Burst {
  /** The response frames the client got, in order. */
  answers: Array<{ id?: string; success: boolean; error?: string }>;
  /** The recorded messages of the connection, in the order the proxy saw them. */
  messages: MessageRow[];
  findings: FindingListRow[];
}

/**
 * Attaches as controller and sends each group of commands in one write; after a group, waits for
 * `waitFor` answers in all before sending the next. Closes cleanly once `answers` frames arrived.
 */
async function burst(script: RpcCommandScript, groups: string[][], waitFor: number[], answers: number): Promise<Burst> {
  const d = await daemon({ commandScript: script });
  const rec = await record(d.url);
  const c = await wsOpen(`${rec.wsUrl}/v1/session/agent-a/rpc?role=controller`, 'pi-daemon-rpc.v1', { headers: bearer(d.token) });
  await c.take(1);
  for (const [i, group] of groups.entries()) {
    sendTogether(c.ws, group.map(commandFrame));
    await c.take(1 + (waitFor[i] ?? answers));
  }
  const frames = await c.take(1 + answers);
  c.ws.close(1000, 'done');
  await c.closed;
  const reader: RecordingReader = await rec.finish();
  const [exchange] = wsExchanges(reader);
  return {
    answers: frames.slice(1).map((f) => JSON.parse(f).response),
    messages: reader.messages(exchange.id),
    findings: [...reader.findings()],
  };
}

/** The order the proxy saw the connection's text frames in: `c:<id>` for a command, `s:<id>` or `s:rejected` for an answer. */
function seen(messages: MessageRow[]): string[] {
  return messages
    .filter((m) => m.channel === 'text' && (m.json as { kind?: string }).kind !== 'attach_ready')
    .map((m) => {
      const frame = m.json as { kind: string; command?: { id: string }; response?: { id?: string } };
      return frame.kind === 'command' ? `c:${frame.command!.id}` : `s:${frame.response!.id ?? 'rejected'}`;
    });
}

const byRule = (findings: FindingListRow[], rule: string) => findings.filter((f) => f.rule === rule);

describe('proxy record: a burst of framed commands the daemon answered in its own order', () => {
  it('the daemon answered all twelve: no in-flight-limit-exceeded, no response-already-answered, no finding at all', async () => {
    // The daemon holds the first eight (its limit, not over it) and answers them last first, then the rest at once.
    const { answers, messages, findings } = await burst({ hold: range(0, 7), releaseAfter: { 7: range(0, 7).reverse() } }, [ids(0, 11)], [], 12);
    expect(answers.map((a) => [a.id, a.success])).toEqual([...range(0, 7).reverse(), ...range(8, 11)].map((i) => [`burst-${i}`, true]));
    // The race, from the proxy's side: it saw all twelve commands before any answer.
    expect(seen(messages)).toEqual([...ids(0, 11).map((id) => `c:${id}`), ...answers.map((a) => `s:${a.id}`)]);
    expect(byRule(findings, 'in-flight-limit-exceeded')).toEqual([]);
    expect(byRule(findings, 'response-already-answered')).toEqual([]);
    expect(findings).toEqual([]);
    expect(messages.filter((m) => m.channel === 'text').every((m) => m.verdict.status === 'valid')).toBe(true);
  });

  it('a rejection several commands can answer: one warning naming them, success answers are never "already answered", none is unanswered', async () => {
    // burst-0 is answered at once; 1…8 fill the daemon's limit; 9 is rejected; 1…8 are then answered, 10 and 11 at once.
    const { answers, messages, findings } = await burst({ hold: range(1, 8), releaseAfter: { 9: range(1, 8) } }, [ids(0, 11)], [], 12);
    expect(answers.map((a) => a.id ?? a.error)).toEqual(['burst-0', 'rpc_in_flight_capacity', ...ids(1, 8), 'burst-10', 'burst-11']);
    expect(seen(messages)).toEqual([...ids(0, 11).map((id) => `c:${id}`), 's:burst-0', 's:rejected', ...[...ids(1, 8), 'burst-10', 'burst-11'].map((id) => `s:${id}`)]);

    const rejection = messages.find((m) => seen([m])[0] === 's:rejected')!;
    // The client did overrun the limit, and the daemon said so: one warning, on its rejection.
    expect(byRule(findings, 'in-flight-limit-exceeded')).toEqual([expect.objectContaining({ seq: rejection.seq, sender: 'server', severity: 'warning', pointer: '/response/error' })]);
    // burst-8…11 were each sent while the proxy counted eight or more unanswered: any one can be the rejected one.
    expect(byRule(findings, 'response-uncorrelatable')).toEqual([
      expect.objectContaining({ seq: rejection.seq, severity: 'warning', message: expect.stringContaining(`one of 4 commands the daemon can have rejected: ${ids(8, 11).map((id) => `command 'get_state' with id "${id}"`).join(', ')}`) }),
    ]);
    expect(byRule(findings, 'response-already-answered')).toEqual([]);
    expect(byRule(findings, 'command-unanswered')).toEqual([]);
    expect(findings.map((f) => f.rule).sort()).toEqual(['in-flight-limit-exceeded', 'response-uncorrelatable']);
  });

  it('answers that arrive while the client still sends: a rejection only one command fits is attributed to it', async () => {
    // 0…7 fill the limit, 8 is rejected, 0…3 answered; once the client has those, it sends 9…11, which the daemon holds too.
    const script = { hold: [...range(0, 7), ...range(9, 11)], releaseAfter: { 8: range(0, 3), 11: [...range(4, 7), ...range(9, 11)] } };
    const { answers, messages, findings } = await burst(script, [ids(0, 8), ids(9, 11)], [5], 12);
    expect(answers.map((a) => a.id ?? a.error)).toEqual(['rpc_in_flight_capacity', ...ids(0, 7), ...ids(9, 11)]);
    expect(seen(messages)).toEqual([
      ...ids(0, 8).map((id) => `c:${id}`),
      's:rejected',
      ...ids(0, 3).map((id) => `s:${id}`),
      ...ids(9, 11).map((id) => `c:${id}`),
      ...[...ids(4, 7), ...ids(9, 11)].map((id) => `s:${id}`),
    ]);
    const rejection = messages.find((m) => seen([m])[0] === 's:rejected')!;
    expect(byRule(findings, 'in-flight-limit-exceeded')).toEqual([expect.objectContaining({ seq: rejection.seq })]);
    expect(byRule(findings, 'response-uncorrelatable')).toEqual([
      expect.objectContaining({ seq: rejection.seq, message: expect.stringContaining(`it answers command 'get_state' with id "burst-8", the only one the daemon can have rejected`) }),
    ]);
    expect(findings.map((f) => f.rule).sort()).toEqual(['in-flight-limit-exceeded', 'response-uncorrelatable']);
  });
});
