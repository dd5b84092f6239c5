import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineInbox, planLines, playLineConversation } from '../../src/replay/line/line-conversation.js';
import type { ScriptMessage } from '../../src/replay/replay-script.js';
import { lineMissAnswer } from '../../src/replay/line/stdio-miss.js';
import { parseTiming } from '../../src/replay/timing.js';
import { driveClock, ManualClock } from '../support/manual-clock.js';
import { within } from '../support/waits.js';

let seq = 0;
function line(sender: 'client' | 'server', value: unknown, tOffsetMs: number, channel: string | null = sender === 'client' ? 'stdin' : 'stdout'): ScriptMessage {
  const raw = Buffer.from(JSON.stringify(value) + '\n');
  return { seq: ++seq, sender, carrier: 'line', channel, raw, json: value, tOffsetMs, truncated: false };
}

const recorded = [
  line('server', { type: 'ready' }, 5),
  line('client', { jsonrpc: '2.0', id: 0, method: 'session/prompt', params: { text: 'hi' } }, 100),
  line('server', { jsonrpc: '2.0', method: 'session/update', params: { n: 1 } }, 110),
  line('server', { jsonrpc: '2.0', method: 'session/update', params: { n: 2 } }, 260),
  line('server', 'to stderr', 261, 'stderr'),
  line('server', { jsonrpc: '2.0', id: 0, result: { stopReason: 'end_turn' } }, 262),
];

/**
 * Plays `recorded` to `input` on a manual clock, stepped to each deadline the conversation waits
 * for; every write is stamped with the clock time it was made at.
 */
async function play(timing: string, input: string[]) {
  const stdin = new PassThrough();
  const clock = new ManualClock();
  const writes: Array<{ at: number; text: string; channel: string | null }> = [];
  const done = playLineConversation(planLines(recorded), new LineInbox(stdin), {
    protocol: 'acp',
    ignore: [],
    timing: parseTiming(timing),
    clock,
    anchorMs: 0,
    write: async (bytes, message) => void writes.push({ at: clock.now(), text: bytes.toString(), channel: message.channel }),
    onMiss: (miss) => lineMissAnswer('acp', miss, { recordedMethods: new Set(['session/prompt']) }),
  });
  for (const text of input) stdin.write(text);
  stdin.end();
  const stepped = await driveClock(clock, done);
  return { result: await done, writes, stepped };
}

describe('line conversation (stdio / NDJSON replay core)', () => {
  it('plays the preamble, waits for the client line, substitutes its id and keeps the recorded gaps', async () => {
    const { result, writes, stepped } = await play('recorded', ['{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"text":"hi"}}\n']);
    expect(result).toMatchObject({ sent: 5, misses: [], unused: [], substitutions: 1 });
    expect(writes.map((w) => w.text)).toEqual([
      '{"type":"ready"}\n',
      '{"jsonrpc":"2.0","method":"session/update","params":{"n":1}}\n',
      '{"jsonrpc":"2.0","method":"session/update","params":{"n":2}}\n',
      '"to stderr"\n',
      '{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}\n',
    ]);
    expect(writes[3].channel).toBe('stderr');
    // The preamble is due 5 ms in. The client line arrives at 5 on the clock (recorded at 100), and
    // the replies follow it by their recorded 10, 160, 161 and 162 ms.
    expect(stepped).toEqual([5, 15, 165, 166, 167]);
    expect(writes.map((w) => w.at)).toEqual([5, 15, 165, 166, 167]);
  });

  it('with --timing none sends at once; a stray request gets a JSON-RPC error, a stray notification only a report', async () => {
    const { result, writes, stepped } = await play('none', [
      '{"jsonrpc":"2.0","method":"session/cancel","params":{}}\n',
      '{"jsonrpc":"2.0","id":3,"method":"nope/x","params":{}}\n',
      '{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"text":"hi"}}\n',
    ]);
    expect(result.misses.map((m) => m.line.line)).toEqual([1, 2]);
    const error = JSON.parse(writes[1].text) as { id: number; error: { code: number; message: string } };
    expect(error).toMatchObject({ id: 3, error: { code: -32601 } });
    expect(error.error.message).toMatch(/does not match recorded line \d+ \{"jsonrpc":"2.0","id":0,"method":"session\/prompt"/);
    expect(writes.at(-1)!.text).toBe('{"jsonrpc":"2.0","id":4,"result":{"stopReason":"end_turn"}}\n');
    expect(stepped).toEqual([]);
    expect(writes.every((w) => w.at === 0)).toBe(true);
  });

  it('hides secret fields of a live line it quotes in a miss answer', async () => {
    const secret = 'sk-live-line-0123456789abcdef';
    const { result, writes } = await play('none', [
      `{"jsonrpc":"2.0","id":3,"method":"nope/x","params":{"apiKey":"${secret}"}}\n`,
      '{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"text":"hi"}}\n',
    ]);
    expect(result.misses).toHaveLength(1);
    const error = JSON.parse(writes[1].text) as { id: number; error: { message: string } };
    expect(error.error.message).toContain('{"jsonrpc":"2.0","id":3,"method":"nope/x","params":{"apiKey":"<redacted>"}}');
    expect(writes.map((w) => w.text).join('')).not.toContain(secret);
  });

  it('reports recorded client lines that never came as unused', async () => {
    const { result } = await play('none', []);
    expect(result.unused).toHaveLength(1);
    expect(result.sent).toBe(1);
  });

  describe('a conversation the recorded peer ended first (the daemon ended the connection, the agent exited)', () => {
    // A blank line the client wrote after the peer's end (to tell an end from a reset) was recorded too.
    const ended = [...recorded, line('client', '', 300)];
    const prompt = '{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"text":"hi"}}\n';
    const start = (peerEnds: boolean) => {
      const stdin = new PassThrough();
      const writes: string[] = [];
      const done = playLineConversation(planLines(ended), new LineInbox(stdin), {
        protocol: 'acp',
        ignore: [],
        timing: parseTiming('none'),
        clock: new ManualClock(),
        anchorMs: 0,
        write: async (bytes) => void writes.push(bytes.toString()),
        onMiss: () => undefined,
        peerEnds,
      });
      stdin.write(prompt);
      return { stdin, writes, done };
    };

    it('ends once the peer\'s last line is written, without waiting for the client to end, and awaits no line recorded after it', async () => {
      const { writes, done } = start(true);
      const result = await within(done, 'the conversation to end where the peer ended it');
      expect(result).toMatchObject({ sent: 5, misses: [], unused: [], peerEnded: true });
      expect(writes.at(-1)).toBe('{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}\n');
    });

    it('without the recorded end (an older recording) it waits for the client to end, as before', async () => {
      const { stdin, done } = start(false);
      stdin.end();
      const result = await within(done, 'the conversation to end with its client');
      expect(result).toMatchObject({ sent: 5, peerEnded: false });
      expect(result.unused).toHaveLength(1);
    });
  });

  it('pauses a client that writes far ahead of the replay, and resumes it as lines are taken, in order', async () => {
    const stdin = new PassThrough();
    const inbox = new LineInbox(stdin);
    const lines = 5000;
    stdin.write(Array.from({ length: lines }, (_, i) => `{"n":${i}}\n`).join(''));
    await new Promise((resolve) => setImmediate(resolve));
    // One chunk of 5000 lines is framed at once, but then the input waits for the replay.
    expect(stdin.isPaused()).toBe(true);
    const taken: number[] = [];
    for (let i = 0; i < lines; i++) taken.push((JSON.parse((await inbox.next())!.text) as { n: number }).n);
    expect(stdin.isPaused()).toBe(false);
    expect(taken).toEqual(Array.from({ length: lines }, (_, i) => i));
    stdin.end();
    expect(await inbox.next()).toBeUndefined();
  });
});
