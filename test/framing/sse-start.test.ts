import { describe, expect, it } from 'vitest';
import { EventEncoder } from '@ag-ui/encoder';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { sseStartOf } from '../../src/framing/sse-start.js';
import { AGUI_MEDIA_TYPE } from '../support/agui-agent.js';

describe('sseStartOf', () => {
  it('names the SSE line start a body opens with', () => {
    expect(sseStartOf(Buffer.from('data: {"type":"RUN_STARTED"}\n\n'))).toBe('data:');
    expect(sseStartOf(Buffer.from('event: message\ndata: {}\n\n'))).toBe('event:');
    expect(sseStartOf(Buffer.from('id: 1\ndata: {}\n\n'))).toBe('id:');
    expect(sseStartOf(Buffer.from(': ping\n\n'))).toBe(':');
  });

  it('asks for more while the first bytes could still open either way', () => {
    expect(sseStartOf(Buffer.alloc(0))).toBe('more');
    expect(sseStartOf(Buffer.from('d'))).toBe('more');
    expect(sseStartOf(Buffer.from('dat'))).toBe('more');
    expect(sseStartOf(Buffer.from('even'))).toBe('more');
    expect(sseStartOf(Buffer.from('i'))).toBe('more');
  });

  it('says no for a body that does not open like SSE, a real protobuf stream above all', () => {
    const frame = new EventEncoder({ accept: AGUI_MEDIA_TYPE }).encodeBinary({ type: EventType.RUN_STARTED, threadId: 't', runId: 'r' } as BaseEvent);
    expect(sseStartOf(Buffer.from(frame))).toBe('no');
    expect(sseStartOf(Buffer.from(frame).subarray(0, 1))).toBe('no');
    expect(sseStartOf(Buffer.from('date: today'))).toBe('no');
    expect(sseStartOf(Buffer.from('{"type":"RUN_STARTED"}'))).toBe('no');
    expect(sseStartOf(Buffer.from('retry: 10\n'))).toBe('no');
  });
});
