/**
 * Runs in every test file (vitest setupFiles), listed after agreement-setup.ts: vitest runs
 * "after" hooks newest first, so this one runs before the agreement check, whose folders must be
 * handed to it (temp-dir.ts defers a folder holding a recording) and not made again after it.
 * A file that made scratch folders without useCleanups() left them all behind in the OS temp dir.
 */
import { afterAll } from 'vitest';
import { runLeftoverCleanups } from './cleanups.js';

afterAll(runLeftoverCleanups);
