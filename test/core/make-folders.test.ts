import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeFolders } from '../../src/core/make-folders.js';
import { scratch } from '../support/temp-dir.js';
import { useCleanups } from '../support/cleanups.js';

useCleanups();

describe('makeFolders', () => {
  it('makes every missing level, with the mode asked for, and takes folders that are already there', () => {
    const dir = scratch().dir;
    const deep = join(dir, 'a', 'b', 'c');
    makeFolders(deep, 0o700);
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(statSync(join(dir, 'a')).mode & 0o777).toBe(0o700);
    makeFolders(deep);
    makeFolders(dir);
    mkdirSync(join(dir, 'x'));
    makeFolders(join(dir, 'x', 'y'));
    expect(statSync(join(dir, 'x', 'y')).isDirectory()).toBe(true);
  });

  it('throws where a level is a file', () => {
    const dir = scratch().dir;
    writeFileSync(join(dir, 'file'), '');
    expect(() => makeFolders(join(dir, 'file'))).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(() => makeFolders(join(dir, 'file', 'a', 'b'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  // Node's recursive mkdirSync never returns here: /proc exists and refuses new entries with ENOENT.
  it.runIf(process.platform === 'linux')('throws where a level cannot be made though its parent is there (under /proc)', () => {
    expect(() => makeFolders('/proc/agent-proxy-test/a')).toThrow(expect.objectContaining({ code: 'ENOENT', path: '/proc/agent-proxy-test' }));
  });
});
