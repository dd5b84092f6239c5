import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import { parseFault } from '../../src/replay/fault/fault-spec.js';

describe('parseFault', () => {
  it('reads each action with its options', () => {
    expect(parseFault('latency=250ms')).toEqual({ text: 'latency=250ms', action: { kind: 'latency', ms: 250 } });
    expect(parseFault('latency=1.5s').action).toEqual({ kind: 'latency', ms: 1500 });
    expect(parseFault('gap=40').action).toEqual({ kind: 'gap', ms: 40 });
    expect(parseFault('status=503,nth=3')).toEqual({ text: 'status=503,nth=3', action: { kind: 'status', status: 503 }, nth: { from: 3, to: 3 } });
    expect(parseFault('cut=reset,after=5,path=/agent/*').action).toEqual({ kind: 'cut', how: 'reset', after: 5 });
    expect(parseFault('cut=clean').action).toEqual({ kind: 'cut', how: 'clean', after: 0 });
    expect(parseFault('close=1011,after=2').action).toEqual({ kind: 'close', code: 1011, after: 2 });
    expect(parseFault('exit=3, after=10').action).toEqual({ kind: 'exit', code: 3, after: 10 });
    expect(parseFault('status=429,retry-after=2').action).toEqual({ kind: 'status', status: 429, retryAfterMs: 2000 });
    expect(parseFault('status=529,retry-after=250ms').action).toEqual({ kind: 'status', status: 529, retryAfterMs: 250 });
    expect(parseFault('status=429,should-retry=false').action).toEqual({ kind: 'status', status: 429, shouldRetry: false });
    expect(parseFault('error=500,after=3').action).toEqual({ kind: 'error', status: 500, after: 3 });
    expect(parseFault('error=529').action).toEqual({ kind: 'error', status: 529, after: 0 });
    expect(parseFault('latency=3s,after=0').action).toEqual({ kind: 'latency', ms: 3000, after: 0 });
  });

  it('reads the filters: nth ranges, a path pattern, an upper-cased method', () => {
    expect(parseFault('status=500,nth=2-4').nth).toEqual({ from: 2, to: 4 });
    expect(parseFault('status=500,nth=2-').nth).toEqual({ from: 2 });
    const spec = parseFault('status=500,method=post,path=/v1/**');
    expect(spec.method).toBe('POST');
    expect(spec.path).toBe('/v1/**');
  });

  it.each([
    ['', 'is not <name>=<value>'],
    ['slow=5', "'slow' is not a fault"],
    ['status=99', 'not an HTTP status'],
    ['status=101', 'not an HTTP status a fault can answer with (200-599)'],
    ['status=abc', 'not a whole number'],
    ['cut=maybe', 'cut must be clean or reset'],
    ['close=1006', 'cannot be sent in a close frame'],
    ['exit=256', 'not 0-255'],
    ['latency=fast', 'not a duration'],
    ['latency=2h', 'not a duration'],
    ['status=503,after=2', "'after' applies to latency, error, cut, close and exit only"],
    ['gap=1s,after=2', "'after' applies to latency, error, cut, close and exit only"],
    ['cut=reset,retry-after=1', "'retry-after' applies to status only"],
    ['status=429,retry-after=soon', 'not a duration'],
    ['status=429,should-retry=maybe', 'should-retry must be true or false'],
    ['error=500,should-retry=true', "'should-retry' applies to status only"],
    ['error=200', 'not an HTTP error status (400-599)'],
    ['status=503,nth=0', 'counting from 1'],
    ['status=503,nth=4-2', 'ends before it starts'],
    ['status=503,nth=9007199254740993-9007199254740992', 'larger than 9007199254740991'],
    ['status=503,nth=9007199254740993', 'larger than 9007199254740991'],
    ['status=503,nth=1-9007199254740993', 'larger than 9007199254740991'],
    ['status=503,nth=1e20', 'not n, n-m or n-'],
    ['cut=clean,after=1e23', 'not a whole number'],
    ['cut=clean,after=99999999999999999999', 'larger than 9007199254740991'],
    ['close=1011,after=9007199254740992', 'larger than 9007199254740991'],
    ['status=503,path=agent', 'must start with /'],
    ['status=503,colour=red', "'colour' is not an option"],
    ['status=503,nth=1,nth=2', 'given twice'],
  ])('refuses %j with one line that says why', (text, why) => {
    let caught: unknown;
    try {
      parseFault(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: ErrorCode.E_USAGE });
    const message = (caught as Error).message;
    expect(message).toContain(why);
    expect(message).toContain(`--fault '${text}'`);
    expect(message).not.toContain('\n');
  });
});
