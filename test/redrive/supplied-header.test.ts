import { describe, expect, it } from 'vitest';
import { parseSuppliedHeader } from '../../src/redrive/supplied-header.js';

describe('parseSuppliedHeader', () => {
  it("takes 'Name: value' as curl does, the value trimmed and kept whole (a colon in it too)", () => {
    expect(parseSuppliedHeader('Authorization: Bearer a:b ')).toEqual({ name: 'Authorization', value: 'Bearer a:b' });
  });

  it('refuses a missing name or colon, a name that is no token and a line break, without quoting the value', () => {
    for (const bad of ['no colon', ': v', 'bad name: v']) expect(() => parseSuppliedHeader(bad)).toThrow("--header takes 'Name: value'");
    expect(() => parseSuppliedHeader('X-A: secret\r\nX-B: y')).toThrow(/^--header X-A: the value holds a line break or NUL$/);
  });
});
