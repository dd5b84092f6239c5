/** Each replay's summary in the report's terms: HTTP and WebSocket misses by request and route, stdio's on its conversation, NDJSON's on their own. */
import { describe, expect, it } from 'vitest';
import { httpReplayOutcome, ndjsonReplayOutcome, stdioReplayOutcome } from '../../src/report/replay-outcomes.js';
import type { ScriptExchange, ScriptMessage } from '../../src/replay/replay-script.js';

const recordedLine = (seq: number, text: string): ScriptMessage => ({ seq, sender: 'client', carrier: 'line', channel: null, raw: Buffer.from(text + '\n'), json: JSON.parse(text), tOffsetMs: 0, truncated: false });

describe('replay outcomes', () => {
  it('HTTP and WebSocket: misses named by method and route, unused exchanges by id', () => {
    const outcome = httpReplayOutcome(
      {
        strict: true,
        unused: [{ id: 2 } as ScriptExchange],
        misses: [
          { transport: 'http', reason: 'no-match', request: { method: 'POST', path: '/runs/550e8400-e29b-41d4-a716-446655440000', query: 'a=1' }, differences: [], action: 'error' },
          { transport: 'ws', reason: 'exhausted', request: { method: 'GET', path: '/ws', query: '' }, nearest: { exchangeId: 4, method: 'GET', path: '/ws' }, differences: [], action: 'error' },
        ],
      },
      [1, 3],
    );
    expect(outcome).toEqual({
      strict: true,
      served: [1, 3],
      unused: [2],
      misses: [
        { message: 'POST /runs/550e8400-e29b-41d4-a716-446655440000?a=1 matches no recorded exchange', request: 'POST /runs/{id}' },
        { message: 'GET /ws: every recorded answer for this request was used (exchange 4 last); --reuse serves it again', request: 'WebSocket frame on GET /ws' },
      ],
      unusedLines: [],
    });
  });

  it('stdio: the one conversation carries its misses and unused lines', () => {
    const outcome = stdioReplayOutcome(
      {
        exchangeId: 5,
        sent: 1,
        misses: [{ line: { raw: Buffer.from('{"type":"promt"}\n'), text: '{"type":"promt"}', line: 2, unterminated: false, invalidUtf8: false, totalBytes: 17 }, expected: recordedLine(3, '{"type":"prompt"}'), differences: ['/type'] }],
        unused: [recordedLine(3, '{"type":"prompt"}')],
        substitutions: 0,
        redacted: 0,
        ok: false,
        faults: [],
      },
      true,
    );
    expect(outcome.served).toEqual([5]);
    expect(outcome.misses).toEqual([{ message: 'replay miss: line 2 {"type":"promt"} does not match recorded line 3 {"type":"prompt"} at /type', exchange: 5, request: 'line 2' }]);
    expect(outcome.unusedLines).toEqual([{ exchange: 5, seq: 3, text: '{"type":"prompt"}\n' }]);
  });

  it('NDJSON: unused connections by id, misses and unused lines with no connection', () => {
    const outcome = ndjsonReplayOutcome({ misses: ['replay miss: line 1 x'], unusedExchanges: [7], unusedLines: [recordedLine(2, '{"a":1}')], ok: false, faults: [] }, [6], false);
    expect(outcome).toEqual({ strict: false, served: [6], unused: [7], misses: [{ message: 'replay miss: line 1 x', request: 'NDJSON line' }], unusedLines: [{ seq: 2, text: '{"a":1}\n' }] });
  });
});
