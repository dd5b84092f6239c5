import { describeWithCorpus, sharedPath } from '../support/shared.js';
import { expect, it } from 'vitest';
import { replay, useCleanups } from '../replay/replay-helpers.js';

/** Misses against the real pi-daemon v0.3.0 recording (../shared/fixtures/pi-daemon/recorded/run1.ndjson). */

useCleanups();

const RUN1 = () => sharedPath('fixtures', 'pi-daemon', 'recorded', 'run1.ndjson');

describeWithCorpus('replay misses on a real pi-daemon recording', () => {
  it('GET /v1/session/other-session is answered with the daemon envelope, nearest GET /v1/session/pd-a', async () => {
    const served = await replay(RUN1());
    const res = await fetch(`${served.url}/v1/session/other-session`, { headers: { 'x-request-id': 'req-miss-1' } });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { details: { nearest: unknown } } };
    // The daemon's own 404 in the same recording (exchange 13) has this shape and host.
    expect(body).toMatchObject({ apiVersion: '1.0', requestId: 'req-miss-1', hostInstanceId: '866f2fec-11c3-4c52-8340-e8c705301267', ok: false, error: { code: 'replay_miss', retryable: false } });
    expect(body.error.details.nearest).toMatchObject({ method: 'GET', path: '/v1/session/pd-a' });
    const summary = await served.close();
    expect(summary.recorded).toBe(47);
    expect(summary.unused).toHaveLength(47);
  });
});
