import { writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { tempDir } from './temp-dir.js';
import { leftoverFolders } from './temp-dir-leftovers.js';

it('names each folder tempDir() made that still exists, with the file that made it, and none that was removed', () => {
  const ours = () => leftoverFolders().filter(({ dir }) => dir.includes('agent-proxy-leftover-'));
  const kept = tempDir('agent-proxy-leftover-');
  const removed = tempDir('agent-proxy-leftover-');
  writeFileSync(removed.file('a.txt'), 'a');
  removed.cleanup();
  try {
    expect(ours()).toEqual([{ dir: kept.dir, file: expect.getState().testPath }]);
  } finally {
    kept.cleanup();
  }
  expect(ours()).toEqual([]);
});
