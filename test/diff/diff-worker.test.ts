/**
 * Big recordings are scanned with side B in a worker thread (dist/diff/scan-worker.js); the report
 * must be the same byte for byte as when both sides are scanned in one thread.
 * AGENT_PROXY_DIFF_WORKER=always|never forces the choice that is otherwise made by size.
 */
import { describe, expect, it } from 'vitest';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { runCli } from '../cli/run-cli.js';
import { recordAgui, recordPiSession, textScript, useCleanups } from './diff-helpers.js';

useCleanups();

describe('proxy diff with the worker thread', () => {
  it('gives the same report, exit code and errors as scanning in one thread', async () => {
    const a = await recordAgui(textScript(['Hello', ' there']), [{ kind: 'run' }, { kind: 'health' }, { kind: 'run', path: '/second' }]);
    const b = await recordAgui(
      (input) => {
        const events = textScript(['Hello', ' there'])(input) as Array<BaseEvent & { delta?: string }>;
        const last = events.map((e) => e.type).lastIndexOf(EventType.TEXT_MESSAGE_CONTENT);
        events[last] = { ...events[last], delta: ' you' };
        return events;
      },
      [{ kind: 'run' }, { kind: 'run', path: '/second' }],
    );
    const pi = await recordPiSession();
    for (const args of [[a, b], [b, a], [a, a, '--semantic'], [a, pi]]) {
      const never = await runCli(['diff', ...args, '--format', 'json'], { env: { AGENT_PROXY_DIFF_WORKER: 'never' } });
      const always = await runCli(['diff', ...args, '--format', 'json'], { env: { AGENT_PROXY_DIFF_WORKER: 'always' } });
      expect(always.stderr).toBe('');
      expect(always.code).toBe(never.code);
      expect(always.stdout).toBe(never.stdout);
    }
    expect(JSON.parse((await runCli(['diff', a, b, '--format', 'json'], { env: { AGENT_PROXY_DIFF_WORKER: 'always' } })).stdout).summary.exchanges).toEqual({
      equal: 0,
      changed: 2,
      added: 0,
      removed: 1,
    });
    const missing = await runCli(['diff', a, `${b}.nope`], { env: { AGENT_PROXY_DIFF_WORKER: 'always' } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no recording at');
  });
});
