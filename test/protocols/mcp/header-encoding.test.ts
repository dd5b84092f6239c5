/**
 * MCP 2026-07-28's mirrored header values (Mcp-Name, Mcp-Param-*): the transport page's encoding
 * examples decode to their values; what a header may not carry, or a sentinel without Base64, is
 * refused with the reason.
 */
import { describe, expect, it } from 'vitest';
import { decodeMirroredHeader } from '../../../src/protocols/mcp/header-encoding.js';

describe('decodeMirroredHeader', () => {
  it("decodes the page's examples to the body's values", () => {
    expect(decodeMirroredHeader('us-west1')).toEqual({ ok: true, value: 'us-west1' });
    expect(decodeMirroredHeader('=?base64?SGVsbG8sIOS4lueVjA==?=')).toEqual({ ok: true, value: 'Hello, 世界' });
    expect(decodeMirroredHeader('=?base64?IHBhZGRlZCA=?=')).toEqual({ ok: true, value: ' padded ' });
    expect(decodeMirroredHeader('=?base64?bGluZTEKbGluZTI=?=')).toEqual({ ok: true, value: 'line1\nline2' });
    expect(decodeMirroredHeader('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=')).toEqual({ ok: true, value: '=?base64?literal?=' });
    // Padding left out still decodes.
    expect(decodeMirroredHeader('=?base64?IHBhZGRlZCA?=')).toEqual({ ok: true, value: ' padded ' });
  });

  it('refuses a value a header may not carry plain, and a sentinel that is no Base64 of UTF-8', () => {
    expect(decodeMirroredHeader('Zürich')).toMatchObject({ ok: false, reason: expect.stringContaining('visible ASCII') });
    expect(decodeMirroredHeader('=?base64?not base64!?=')).toMatchObject({ ok: false, reason: expect.stringContaining('does not hold Base64') });
    expect(decodeMirroredHeader('=?base64?/w==?=')).toMatchObject({ ok: false, reason: expect.stringContaining('UTF-8') });
    // The markers are case-sensitive: an upper-case one is a plain value.
    expect(decodeMirroredHeader('=?BASE64?dXM=?=')).toEqual({ ok: true, value: '=?BASE64?dXM=?=' });
  });
});
