import { describe, expect, it } from 'vitest';
import { IdCanonicalizer } from '../../src/diff/id-canonicalizer.js';
import { replaceVolatileTokens } from '../../src/diff/volatile-tokens.js';

const kinds = (text: string) => replaceVolatileTokens(text, (kind) => kind);

describe('volatile tokens inside strings', () => {
  it('finds uuids, ULIDs and timestamps, alone or embedded, by their shape', () => {
    expect(kinds('01a232fb-bddd-7732-9bc4-d14784196a3f')).toBe('uuid');
    expect(kinds('/pi/2026-12-01T19-01-28-669Z_01a232fb-bddd-7732-9bc4-d14784196a3f.jsonl')).toBe('/pi/{timestamp}_{uuid}.jsonl');
    expect(kinds('job 01ARZ3NDEKTSV4RRFFQ69G5FAV done')).toBe('job {ulid} done');
    expect(kinds('at 2026-12-01T19:01:28.669Z and 2026-12-01 19:01:28+01:00')).toBe('at {timestamp} and {timestamp}');
    expect(kinds('basic 20261201T190128Z')).toBe('basic {timestamp}');
    expect(kinds('Date: Tue, 01 Dec 2026 19:01:26 GMT')).toBe('Date: {timestamp}');
    expect(kinds('RUN-866F2FEC-11C3-4C52-8340-E8C705301267')).toBe('RUN-{uuid}');
  });

  it('leaves ordinary text, and tokens glued to longer runs of letters and digits, as they are', () => {
    for (const text of [
      'Hello from the mock model.',
      'This is README.txt in the session cwd. MARKER-42.',
      'x01a232fb-bddd-7732-9bc4-d14784196a3f',
      '01a232fb-bddd-7732-9bc4-d14784196a3fz',
      'ABCDEFGHJKMNPQRSTVWXYZABCD', // 26 letters, but a ULID starts with a digit 0-7
      '01234567890123456789012345', // 26 digits: no letter, so not a ULID
      '2026-12-01', // a date alone is not volatile enough to hide
      'version 1.2.3-rc.4',
    ]) {
      expect(kinds(text), text).toBe(text);
    }
  });

  it('labels each token by kind in order of first appearance: the same token alike, two tokens apart', () => {
    const ids = new IdCanonicalizer();
    const u1 = '01a232fb-bddd-7732-9bc4-d14784196a3f';
    const u2 = '01a232fc-d01b-7b71-9dd6-1869b7bc7db3';
    const value = { file: `/s/2026-12-01T19-01-28-669Z_${u1}.jsonl`, again: `${u1}`, other: `a/${u2}`, note: 'plain text' };
    expect(ids.canonicalize(value)).toEqual({ file: '/s/{timestamp#1}_{uuid#1}.jsonl', again: 'uuid#1', other: 'a/{uuid#2}', note: 'plain text' });
  });

  it('an id learnt under its key reads the same where a string embeds it', () => {
    const ids = new IdCanonicalizer();
    const sessionId = '866f2fec-11c3-4c52-8340-e8c705301267';
    expect(ids.canonicalize({ sessionId, sessionFile: `/pi/${sessionId}.jsonl` })).toEqual({ sessionId: 'sessionId#1', sessionFile: '/pi/{sessionId#1}.jsonl' });
  });
});
