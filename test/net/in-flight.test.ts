import { describe, expect, it } from 'vitest';
import { InFlight } from '../../src/net/in-flight.js';
import { SHUTDOWN_GRACE_MS } from '../../src/net/graceful-shutdown.js';

describe('InFlight', () => {
  it('counts exchanges, untracks each once, and reports when the last one leaves', () => {
    const inFlight = new InFlight(SHUTDOWN_GRACE_MS);
    let emptied = 0;
    inFlight.onEmpty = () => emptied++;
    const first = inFlight.add(() => undefined);
    const second = inFlight.add(() => undefined);
    const third = inFlight.add(() => undefined);
    expect(inFlight.size).toBe(3);
    second();
    second();
    expect(inFlight.size).toBe(2);
    third();
    expect(emptied).toBe(0);
    first();
    expect(inFlight.size).toBe(0);
    expect(emptied).toBe(1);
    first();
    expect(emptied).toBe(1);
  });

  it('stops every exchange in flight, even when stopping one untracks another', () => {
    const inFlight = new InFlight(SHUTDOWN_GRACE_MS);
    const stopped: string[] = [];
    const untrack: Record<string, () => void> = {};
    for (const name of ['a', 'b', 'c']) {
      untrack[name] = inFlight.add(() => {
        stopped.push(name);
        untrack[name]();
        // Ending one stream can end its partner (a WebSocket's other leg) before shutdown reaches it.
        if (name === 'c') untrack.b();
      });
    }
    const done = inFlight.add(() => stopped.push('finished'));
    done();
    inFlight.stopAll();
    expect(stopped.sort()).toEqual(['a', 'b', 'c']);
    expect(inFlight.size).toBe(0);
  });

  it('stops an exchange that joins once shutdown has begun (a request read during it), after its caller has the untrack call', async () => {
    const inFlight = new InFlight(SHUTDOWN_GRACE_MS);
    inFlight.stopAll();
    let stops = 0;
    const untrack = inFlight.add(() => {
      stops++;
      untrack();
    });
    expect(stops).toBe(0);
    await Promise.resolve();
    expect(stops).toBe(1);
    expect(inFlight.size).toBe(0);
    // One that ended on its own before then is not stopped.
    inFlight.add(() => stops++)();
    await Promise.resolve();
    expect(stops).toBe(1);
  });
});
