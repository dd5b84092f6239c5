/** The shared replay pieces on their own: timing, normalization, correlation substitution. */
import { describe, expect, it } from 'vitest';
import { CorrelationMemory, learnCorrelation, Substitution } from '../../src/match/correlation.js';
import { FieldSpecs, parseIgnoreOption } from '../../src/core/field-specs.js';
import { canonicalJson, jsonDifferences, normalizeJson, normalizerFor } from '../../src/match/normalize.js';
import { parseTiming, PlaybackClock } from '../../src/replay/timing.js';
import { ProxyError } from '../../src/core/errors.js';
import { ManualClock } from '../support/manual-clock.js';

describe('timing', () => {
  it('parses recorded, none and speeds', () => {
    expect(parseTiming(undefined)).toEqual({ mode: 'recorded', speed: 1 });
    expect(parseTiming('recorded')).toEqual({ mode: 'recorded', speed: 1 });
    expect(parseTiming('none')).toEqual({ mode: 'none' });
    expect(parseTiming('2x')).toEqual({ mode: 'recorded', speed: 2 });
    expect(parseTiming('0.5x')).toEqual({ mode: 'recorded', speed: 0.5 });
    for (const bad of ['fast', '0x', 'x', '-1x', '2']) expect(() => parseTiming(bad), bad).toThrow(ProxyError);
  });

  it('schedules against deadlines from the anchor on its clock, scaled by the speed', async () => {
    const clock = new ManualClock();
    clock.advanceTo(10);
    const playback = new PlaybackClock({ mode: 'recorded', speed: 2 }, 1000, clock);
    expect(playback.delayBefore(1000)).toBe(0);
    expect(playback.delayBefore(1200)).toBe(100);
    // Deadlines, not summed sleeps: time that has passed counts, and what is past due is due now.
    clock.advanceTo(60);
    expect(playback.delayBefore(1200)).toBe(50);
    expect(playback.delayBefore(1050)).toBe(0);
    playback.reanchor(5000);
    expect(playback.delayBefore(5100)).toBe(50);
    expect(new PlaybackClock({ mode: 'none' }, 0, clock).delayBefore(1e9)).toBe(0);
  });

  it('waits on its clock until the deadline, not for less than 1 ms, and stops waiting on abort', async () => {
    const clock = new ManualClock();
    const playback = new PlaybackClock({ mode: 'recorded', speed: 1 }, 0, clock);
    const waiting = playback.wait(40);
    expect(clock.deadlines).toEqual([40]);
    clock.advanceTo(40);
    await waiting;
    await playback.wait(40.9);
    expect(clock.deadlines).toEqual([40]);
    const abort = new AbortController();
    const aborted = playback.wait(1000, abort.signal);
    abort.abort();
    await aborted;
    expect(clock.now()).toBe(40);
    expect(clock.nextDeadline()).toBeUndefined();
  });
});

describe('normalize', () => {
  it('drops volatile keys at any depth and pointers (with * wildcards), and sorts keys', () => {
    const drop = new FieldSpecs(['runId', '/messages/*/id']);
    const value = { runId: 'r', b: 1, a: { runId: 'x', keep: true }, messages: [{ id: 'm1', content: 'hi' }] };
    expect(normalizeJson(value, drop)).toEqual({ a: { keep: true }, b: 1, messages: [{ content: 'hi' }] });
    expect(canonicalJson(normalizeJson(value, drop))).toBe('{"a":{"keep":true},"b":1,"messages":[{"content":"hi"}]}');
    // An ignored array element keeps its place.
    expect(normalizeJson([1, 2, 3], new FieldSpecs(['/1']))).toEqual([1, '<ignored>', 3]);
  });

  it("uses each protocol's volatile fields", () => {
    const agui = normalizerFor('agui', []);
    // The ids a client mints for its messages and its own tool calls go; other ids (state, tools) stay.
    const input = {
      threadId: 't',
      runId: 'r',
      state: { id: 'kept' },
      messages: [
        { id: 'u1', role: 'user', content: 'x' },
        { id: 'a1', role: 'assistant', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { id: 't1', role: 'tool', toolCallId: 'c1', content: 'y' },
      ],
    };
    expect(agui(input)).toEqual({
      state: { id: 'kept' },
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', toolCalls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', content: 'y' },
      ],
    });
    expect(normalizerFor('acp', [])({ jsonrpc: '2.0', id: 7, params: { id: 'kept' } })).toEqual({ jsonrpc: '2.0', params: { id: 'kept' } });
    expect(normalizerFor(undefined, ['/x'])({ x: 1, y: 2 })).toEqual({ y: 2 });
  });

  it('lists the differing fields as JSON pointers', () => {
    expect(jsonDifferences({ a: 1, b: [1, 2], c: { 'd/e': 1 } }, { a: 1, b: [1, 3, 4], c: { 'd/e': 2 }, f: 0 })).toEqual(['/b/1', '/b/2', '/c/d~1e', '/f']);
    expect(jsonDifferences('x', 'y')).toEqual(['']);
    expect(jsonDifferences({ a: 1 }, { a: 1 })).toEqual([]);
  });

  it('checks --ignore values', () => {
    expect(parseIgnoreOption(['/a/b', 'runId'])).toEqual(['/a/b', 'runId']);
    expect(() => parseIgnoreOption(['a/b'])).toThrow(ProxyError);
  });
});

describe('correlation substitution', () => {
  it('learns pairs from headers, pointers and key names', () => {
    const pairs = learnCorrelation(
      ['header:x-request-id', '/runId', 'threadId'],
      { body: { runId: 'run-old', nested: { threadId: 'th-old' } }, headers: { 'X-Request-Id': 'req-old' } },
      { body: { runId: 'run-new', nested: { threadId: 'th-new' } }, headers: { 'x-request-id': 'req-new' } },
    );
    expect(pairs.map((p) => [p.recorded, p.live])).toEqual([
      ['req-old', 'req-new'],
      ['run-old', 'run-new'],
      ['th-old', 'th-new'],
    ]);
    expect(learnCorrelation(['/runId'], { body: { runId: 'same' } }, { body: { runId: 'same' } })).toEqual([]);
    expect(learnCorrelation(['/runId'], { body: { runId: 'x' } }, { body: {} })).toEqual([]);
  });

  it('replaces exact JSON tokens only, keeping every other byte', () => {
    const s = new Substitution([{ field: '/runId', key: 'runId', recorded: 'run-1', live: 'run-"2"' }]);
    const raw = Buffer.concat([Buffer.from('data: {"runId":"run-1","other":"run-10","text":"about run-1"}\n\n'), Buffer.from([0xff])]);
    const out = s.apply(raw);
    expect(out.subarray(0, -1).toString()).toBe('data: {"runId":"run-\\"2\\"","other":"run-10","text":"about run-1"}\n\n');
    expect(out.at(-1)).toBe(0xff);
    expect(s.apply(Buffer.from('{"x":1}')).toString()).toBe('{"x":1}');
  });

  it('replaces numbers only as the value of the key they were learnt from', () => {
    const s = new Substitution(learnCorrelation(['/id'], { body: { id: 1 } }, { body: { id: 42 } }));
    expect(s.apply(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"count":1,"items":[1]}}')).toString()).toBe('{"jsonrpc":"2.0","id":42,"result":{"count":1,"items":[1]}}');
    expect(s.apply(Buffer.from('{"id": 1}')).toString()).toBe('{"id": 42}');
    expect(s.applyValue({ id: 1, count: 1 })).toEqual({ id: 42, count: 1 });
  });

  it("remembers pairs for later exchanges; an exchange's own pairs win", () => {
    const memory = new CorrelationMemory();
    memory.substitutionFor([{ field: '/requestId', key: 'requestId', recorded: 'req-1', live: 'live-1' }]);
    const later = memory.substitutionFor([]);
    expect(later.apply(Buffer.from('{"requestId":"req-1"}')).toString()).toBe('{"requestId":"live-1"}');
    const own = memory.substitutionFor([{ field: '/requestId', key: 'requestId', recorded: 'req-1', live: 'live-2' }]);
    expect(own.apply(Buffer.from('"req-1"')).toString()).toBe('"live-2"');
  });
});
