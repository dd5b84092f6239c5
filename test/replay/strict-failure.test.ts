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
        'replay (strict: true): 1 miss, 1 recorded exchange unused',
        '  miss: GET /nothing?x=1 matches no recorded exchange; nearest is exchange 2 (GET /health); differs in path, query',
        '  unused: #1 POST /agent',
      ].join('\n'),
    );
  });

  it('fails an unused recording even with no request at all, and is undefined only with nothing to report', async () => {
    const running = await replay(EXAMPLE, { strict: true });
    const summary = await running.close();
    expect(strictFailure(summary)?.split('\n')).toEqual(['replay (strict: true): 0 misses, 2 recorded exchanges unused', '  unused: #1 POST /agent', '  unused: #2 GET /health']);
    expect(strictFailure({ misses: [], unused: [] })).toBeUndefined();
  });

  it('does not claim --strict for a replay started without it', async () => {
    const running = await replay(EXAMPLE, { strict: false });
    expect((await fetch(`${running.url}/nothing`)).status).toBe(404);
    const summary = await running.close();
    expect(summary).toMatchObject({ ok: true, strict: false });
    const text = strictFailure(summary)!;
    expect(text.split('\n')[0]).toBe('replay: 1 miss, 2 recorded exchanges unused');
    expect(text).not.toContain('strict');
  });

  it("names a fixture's mode, and strict only when it applied", () => {
    const unused = [{ id: 1, method: 'POST', path: '/agent', query: null }] as Parameters<typeof strictFailure>[0]['unused'];
    expect(strictFailure({ misses: [], unused, mode: 'once', strict: true })?.split('\n')[0]).toBe('fixture (mode once, strict: true): 0 misses, 1 recorded exchange unused');
    expect(strictFailure({ misses: [], unused, mode: 'replay', strict: false })?.split('\n')[0]).toBe('fixture (mode replay): 0 misses, 1 recorded exchange unused');
  });
});
