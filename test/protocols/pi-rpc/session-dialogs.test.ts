import { describe, expect, it } from 'vitest';
import { RecordingClock } from '../../../src/core/recording-clock.js';
import { TrafficRecorder } from '../../../src/record/pipeline/traffic-recorder.js';
import { SchemaRegistry } from '../../../src/schema/schema-registry.js';
import { RecordingReader } from '../../../src/store/recording-reader.js';
import { RecordingWriter } from '../../../src/store/recording-writer.js';
import { piRpcProtocol } from '../../../src/protocols/pi-rpc/index.js';
import { Conversation } from './conversation.js';
import { useCleanups } from '../../support/cleanups.js';
import { scratch } from '../../support/temp-dir.js';

/**
 * Extension UI request ids are session-wide on the daemon: a request one connection saw may be
 * answered on another. Recorded through TrafficRecorder, as the proxy records daemon WebSockets.
 */

const registry = SchemaRegistry.load({ useEnv: false });
useCleanups();

const frame = (value: unknown) => Buffer.from(JSON.stringify(value));
const uiRequest = (sequence: number, id: string) => ({ kind: 'event', cursor: `c${sequence}`, sequence, event: { type: 'extension_ui_request', id, method: 'confirm', title: 'Go?' } });
const uiAnswer = (id: string) => ({ kind: 'extension_ui_response', response: { type: 'extension_ui_response', id, confirmed: true } });
const ack = (error?: string) => ({ kind: 'response', response: { type: 'response', command: 'extension_ui_response', success: error === undefined, ...(error ? { error } : {}) } });

/** Records framed connections to daemon sessions and returns the findings of each client frame, by exchange. */
function record(connections: Array<{ session: string; frames: Array<['client' | 'server', unknown]> }>): Map<number, Array<{ rule: string; message: string }>> {
  // Interleaved in the order given: connection 0's frames, then connection 1's, …
  const steps = connections.flatMap(({ frames }, i) => frames.map(([sender, value]): Step => [i, sender, value]));
  return recordSteps(
    connections.map(({ session }) => session),
    steps,
  );
}

/** One frame on one connection (by index). */
type Step = [number, 'client' | 'server', unknown];

/** Like `record`, with the frames of all connections in one list, in the order the proxy saw them. */
function recordSteps(sessions: string[], steps: Step[]): Map<number, Array<{ rule: string; message: string }>> {
  const file = scratch('session-dialogs-').file('rec.db');
  const writer = RecordingWriter.open(file, { toolVersion: 'test', mode: 'record', schemaHashes: registry.hashes(), startedAt: new Date() });
  const recorder = new TrafficRecorder({ writer, registry, clock: new RecordingClock() });
  const open = sessions.map((session) => {
    const exchange = recorder.openExchange({ transport: 'ws', method: 'GET', path: `/v1/session/${session}/rpc`, subprotocol: 'pi-daemon-rpc.v1' });
    exchange.update({ status: 101, subprotocol: 'pi-daemon-rpc.v1' });
    exchange.classify({ transport: 'ws', path: `/v1/session/${session}/rpc`, subprotocol: 'pi-daemon-rpc.v1' });
    return exchange;
  });
  for (const [i, sender, value] of steps) open[i].record(sender, frame(value), { carrier: 'frame' });
  for (const exchange of open) exchange.end({ outcome: 'aborted' });
  writer.close();
  const reader = RecordingReader.open(file);
  try {
    const found = new Map<number, Array<{ rule: string; message: string }>>();
    for (let id = 1; id <= sessions.length; id++) {
      const rows = reader.messages(id).filter((m) => m.sender === 'client');
      found.set(id, rows.flatMap((m) => m.verdict.findings.filter((f) => f.rule.startsWith('extension-ui')).map((f) => ({ rule: f.rule, message: f.message }))));
    }
    return found;
  } finally {
    reader.close();
  }
}

describe('extension UI ids are tracked per daemon session across connections', () => {
  it('an answer on another connection of the same session to a request it never saw is not an unknown request', () => {
    const found = record([
      { session: 'pd-x', frames: [['server', uiRequest(1, 'ui-1')]] },
      { session: 'pd-x', frames: [['client', uiAnswer('ui-1')], ['server', ack('controller_required')]] },
    ]);
    expect(found.get(2)).toEqual([]);
  });

  it('a second answer, on another connection, to a request already answered: worded for the daemon', () => {
    const found = record([
      { session: 'pd-x', frames: [['server', uiRequest(1, 'ui-1')], ['client', uiAnswer('ui-1')], ['server', ack()]] },
      { session: 'pd-x', frames: [['client', uiAnswer('ui-1')], ['server', ack('unknown_ui_request')]] },
    ]);
    expect(found.get(1)).toEqual([]);
    expect(found.get(2)).toEqual([{ rule: 'extension-ui-unknown-request', message: expect.stringContaining('already answered; the daemon refuses') }]);
  });

  it("an observer's answer refused with controller_required does not answer the request: the controller's later answer is valid", () => {
    const found = record([
      { session: 'pd-x', frames: [['server', uiRequest(1, 'ui-1')], ['client', uiAnswer('ui-1')], ['server', ack('controller_required')]] },
      { session: 'pd-x', frames: [['server', uiRequest(1, 'ui-1')], ['client', uiAnswer('ui-1')], ['server', ack()]] },
    ]);
    expect(found.get(1)).toEqual([]);
    expect(found.get(2)).toEqual([]);
  });

  it("the controller's answer is valid while the observer's still waits for its refusal, and a third answer after the controller's is not", () => {
    const found = recordSteps(
      ['pd-x', 'pd-x', 'pd-x'],
      [
        [0, 'server', uiRequest(1, 'ui-1')],
        [1, 'server', uiRequest(1, 'ui-1')],
        [0, 'client', uiAnswer('ui-1')],
        [1, 'client', uiAnswer('ui-1')],
        [0, 'server', ack('controller_required')],
        [1, 'server', ack()],
        [2, 'client', uiAnswer('ui-1')],
        [2, 'server', ack('unknown_ui_request')],
      ],
    );
    expect(found.get(1)).toEqual([]);
    expect(found.get(2)).toEqual([]);
    expect(found.get(3)).toEqual([{ rule: 'extension-ui-unknown-request', message: expect.stringContaining('already answered; the daemon refuses') }]);
  });

  it('an id issued in another session is unknown, and the finding names the session and the daemon, not stock Pi', () => {
    const found = record([
      { session: 'pd-x', frames: [['server', uiRequest(1, 'ui-1')]] },
      { session: 'pd-y', frames: [['client', uiAnswer('ui-1')], ['server', ack('unknown_ui_request')]] },
    ]);
    const [finding] = found.get(2)!;
    expect(finding.rule).toBe('extension-ui-unknown-request');
    expect(finding.message).toContain('session "pd-y" on any connection of this recording');
    expect(finding.message).toContain('the daemon refuses');
    expect(finding.message).not.toContain('stock Pi');
  });
});

describe('stock Pi on stdio keeps its own wording', () => {
  it('an unknown id on a stdio channel: stock Pi ignores the answer', () => {
    const c = new Conversation(piRpcProtocol, registry, 'line');
    expect(c.client({ type: 'extension_ui_response', id: 'ui-9', value: 'x' }).findings).toEqual([
      expect.objectContaining({ rule: 'extension-ui-unknown-request', message: expect.stringContaining('stock Pi ignores the answer') }),
    ]);
  });
});
