// Loaded before every test file (vitest.config.ts, setupFiles): the protocol catalog declares the
// schemas every registry loads, so that a test which makes a registry and nothing else gets them,
// as every command does.
import '../../src/protocols/catalog.js';
