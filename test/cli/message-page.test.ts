/** `show --exchange N --offset/--limit`: a page of a long exchange's messages, saying what it cut. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { cutText, messagePageOf, pageRange } from '../../src/cli/message-page.js';
import { runToEnd } from '../hostile/cli-child.js';
import { AGUI_EXAMPLE } from './cli-fixtures.js';

describe('messagePageOf and pageRange', () => {
  it('pages with --offset and --limit, and says so only when something was cut', () => {
    expect(messagePageOf({})).toBeUndefined();
    expect(pageRange(10, messagePageOf({ exchange: '1', offset: '2', limit: '3' }), 1)).toEqual({ skip: 2, count: 3, cut: { from: 3, to: 5, of: 10 } });
    expect(pageRange(10, messagePageOf({ exchange: '1', offset: '8' }), 1)).toEqual({ skip: 8, count: 2, cut: { from: 9, to: 10, of: 10 } });
    expect(pageRange(10, messagePageOf({ exchange: '1', limit: '10' }), 1)).toEqual({ skip: 0, count: 10 });
    expect(() => pageRange(10, messagePageOf({ exchange: '1', offset: '10' }), 1)).toThrow('--offset 10 is past the last message of exchange 1, which has 10');
    // An empty exchange has nothing to cut, whatever the flags.
    expect(pageRange(0, messagePageOf({ exchange: '1', offset: '0', limit: '5' }), 1)).toEqual({ skip: 0, count: 0 });
    expect(cutText({ from: 3, to: 5, of: 10 })).toBe('showing messages 3–5 of 10');
  });

  it('refuses what is no page', () => {
    expect(() => messagePageOf({ exchange: '1', limit: '0' })).toThrow(UsageError);
    expect(() => messagePageOf({ exchange: '1', offset: '-1' })).toThrow(UsageError);
    expect(() => messagePageOf({ offset: '1' })).toThrow('--offset pages the messages of one exchange; it goes with --exchange <id>');
  });
});

describe('show --exchange --offset --limit', () => {
  it('lists the page and says which of how many it shows', async () => {
    const result = await runToEnd(['show', AGUI_EXAMPLE, '--exchange', '1', '--offset', '2', '--limit', '3']);
    expect([result.code, result.stderr]).toEqual([0, '']);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toContain('  showing messages 3–5 of 16');
    expect(lines.filter((l) => /^\s+\d+ +\+/.test(l)).map((l) => Number(l.trim().split(/\s+/)[0]))).toEqual([3, 4, 5]);
  });

  it('--json too, with the page it cut', async () => {
    const result = await runToEnd(['show', AGUI_EXAMPLE, '--exchange', '1', '--offset', '14', '--json']);
    expect([result.code, result.stderr]).toEqual([0, '']);
    const shown = JSON.parse(result.stdout) as { page: unknown; messages: { seq: number }[] };
    expect(shown.page).toEqual({ offset: 14, shown: 2, total: 16 });
    expect(shown.messages.map((m) => m.seq)).toEqual([15, 16]);
  });
});
