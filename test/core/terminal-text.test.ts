import { describe, expect, it } from 'vitest';
import { escapeControls } from '../../src/core/terminal-text.js';

describe('escapeControls', () => {
  it('shows every C0 and C1 control character and DEL as an escape, and leaves the rest alone', () => {
    expect(escapeControls('cut=\u001b[2J\u0007now')).toBe('cut=\\e[2J\\x07now');
    expect(escapeControls('a\tb\rc\nd')).toBe('a\\tb\\rc\\nd');
    expect(escapeControls('\u0000\u007f\u009b')).toBe('\\x00\\x7f\\u009b');
    expect(escapeControls('plain ünïcödé – ✓ 日本')).toBe('plain ünïcödé – ✓ 日本');
  });

  it('leaves no control character in any string', () => {
    const every = Array.from({ length: 0xa0 }, (_, code) => String.fromCharCode(code)).join('');
    // eslint-disable-next-line no-control-regex
    expect(escapeControls(every)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});
