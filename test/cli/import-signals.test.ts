/**
 * `import` stopped by a signal cleans up as it does on an error: neither the file asked for nor the
 * temporary one it was writing (with its -wal and -shm) is left behind.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LINE_PREFIX } from '../../src/core/program-name.js';
import { useCleanups } from '../support/cleanups.js';
import { ndjsonRecording } from '../support/ndjson-recording.js';
import { scratch } from '../support/temp-dir.js';
import { waitFor } from '../support/waits.js';
import { spawnCli } from './run-cli.js';

useCleanups();

/** Long enough to import that the signal always lands while it is writing (seconds, not milliseconds). */
function bigRecording(file: string): void {
  const messages = Array.from({ length: 100_000 }, (_, i) => ({ sender: i % 2 ? ('server' as const) : ('client' as const), json: { jsonrpc: '2.0', id: i, method: 'ping', params: { n: i } } }));
  writeFileSync(file, ndjsonRecording([{ transport: 'ws', messages }]));
}

describe('import stopped by a signal', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: one line, exit 2, and no file left in the folder but the input`, async () => {
      const dir = scratch();
      const input = dir.file('big.ndjson');
      bigRecording(input);
      const cli = spawnCli(['import', input, '--out', dir.file('out.db')]);
      const partial = await waitFor(() => readdirSync(dir.dir).find((name) => name.startsWith('.out.db.partial-')), 'the import writing its temporary file', {
        pollMs: 2,
      });
      // Stopped while it writes, so the signal cannot arrive after the import has finished.
      cli.child.kill('SIGSTOP');
      expect(readdirSync(dir.dir)).not.toContain('out.db');
      cli.child.kill(signal);
      cli.child.kill('SIGCONT');
      const exited = await cli.exited;
      expect(exited.code).toBe(2);
      expect(cli.stderr()).toBe(`${LINE_PREFIX}import stopped by ${signal}: ${dir.file('out.db')} was not written\n`);
      expect(cli.stdout()).toBe('');
      expect(readdirSync(dir.dir), `${partial} and its side files are gone`).toEqual(['big.ndjson']);
    });
  }
});
