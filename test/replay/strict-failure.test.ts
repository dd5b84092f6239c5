import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { strictFailure } from '../../src/replay/strict-failure.js';
import { REPO } from '../cli/run-cli.js';
import { replay, useCleanups } from './replay-helpers.js';

useCleanups();

const EXAMPLE = join(REPO, 'recordings/examples/agui-sse-run.ndjson');

describe('strictFailure: what a strict replay fails a test suite for', () => {
  it('names every miss and every recorded exchange never used', async () => {
    const running = await replay(EXAMPLE, { strict: true });
    expect((await fetch(`${running.url}/health`)).status).toBe(200);
    expect((await fetch(`${running.url}/nothing?x=1`)).status).toBe(404);
    const summary = await running.close();
    expect(summary.ok).toBe(false);
    expect(strictFailure(summary)).toBe(
      [
        'replay --strict: 1 miss, 1 recorded exchange unused',
        '  miss: GET /nothing?x=1 matches no recorded exchange; nearest is exchange 2 (GET /health); differs in path, query',
        '  unused: #1 POST /agent',
      ].join('\n'),
    );
  });

  it('fails an unused recording even with no request at all, and is undefined only with nothing to report', async () => {
    const running = await replay(EXAMPLE, { strict: true });
    const summary = await running.close();
    expect(strictFailure(summary)?.split('\n')).toEqual(['replay --strict: 0 misses, 2 recorded exchanges unused', '  unused: #1 POST /agent', '  unused: #2 GET /health']);
    expect(strictFailure({ misses: [], unused: [] })).toBeUndefined();
  });
});
