import { describe, expect, it } from 'vitest';
import { CredentialScrubber, keepPatterns } from '../../src/core/credential-scrubber.js';
import { PLANTED } from '../support/credentials.js';

const scrubber = new CredentialScrubber();

describe('CredentialScrubber: well-known credential formats in stored text', () => {
  it.each(Object.entries(PLANTED))('%s is found and replaced, the text around it kept', (name, credential) => {
    const text = `before ${credential} after`;
    const hits = scrubber.find(text);
    expect(hits).toHaveLength(1);
    expect(hits[0].format).toBe(name.replace(/^openai-legacy$/, 'openai-api-key').replace(/^github-oauth$/, 'github-token').replace(/^aws-session-key-id$/, 'aws-access-key-id'));
    expect(scrubber.scrub(text)).toBe('before <redacted> after');
  });

  it('a Bearer header keeps its scheme; a JSON text stays valid JSON, a PEM block with escaped line breaks included', () => {
    expect(scrubber.scrub(`Bearer ${PLANTED.jwt}`)).toBe('Bearer <redacted>');
    expect(scrubber.scrub(`/v1?q=use%20${PLANTED['github-token']}%2C${PLANTED['aws-access-key-id']}&k=${PLANTED['google-api-key']}`)).toBe('/v1?q=use%20<redacted>%2C<redacted>&k=<redacted>');
    const json = JSON.stringify({ key: PLANTED['private-key'], note: `use ${PLANTED['openai-api-key']} here`, n: 1 });
    expect(JSON.parse(scrubber.scrub(json))).toEqual({ key: '<redacted>', note: 'use <redacted> here', n: 1 });
    // A block cut off (no END line) ends with its base64, never in the middle of an escape.
    const cut = JSON.stringify({ key: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\', next: 'x' });
    expect(JSON.parse(scrubber.scrub(cut))).toEqual({ key: '<redacted>', next: 'x' });
  });

  it('near misses stay as they are: words, short prefixes, tokens inside longer ones, public PEM blocks', () => {
    const ordinary = [
      'task-force sk-learn scikit sk-this-is-just-a-long-kebab-case-identifier-name',
      'xsk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789',
      'my_ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
      'ghp_short and sk-short1 and AIzaShort',
      'AKIA is a prefix; THEAKIAIOSFODNN7EXAMPLE; AKIAIOSFODNN7EXAMPLEX',
      'eyJhbGciOiJIUzI1NiJ9 alone, a.b.c, version 1.2.3, eyJab.eyJcd.ef',
      'xoxo-hugs-and-kisses-everyone-1',
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----',
      '{"id":"0196f8e2-7b4c-7d1e-9f3a-2b5c8d0e1f42","hash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}',
    ];
    for (const text of ordinary) expect(scrubber.scrub(text), text).toBe(text);
  });

  it('bytes are scrubbed as they are, and a binary frame keeps its length', () => {
    const bytes = Buffer.concat([Buffer.from([0, 0xff, 0x0a]), Buffer.from(PLANTED['github-token']), Buffer.from([0xfe, 0])]);
    const shorter = scrubber.scrubBytes(bytes);
    expect(shorter.hits).toHaveLength(1);
    expect(shorter.bytes).toEqual(Buffer.concat([Buffer.from([0, 0xff, 0x0a]), Buffer.from('<redacted>'), Buffer.from([0xfe, 0])]));
    const same = scrubber.scrubBytes(bytes, true);
    expect(same.bytes.length).toBe(bytes.length);
    expect(same.bytes.toString('latin1')).toContain('<redacted>****');
    expect(same.bytes.toString('latin1')).not.toContain(PLANTED['github-token']);
    const clean = Buffer.from('nothing here');
    expect(scrubber.scrubBytes(clean).bytes).toBe(clean);
  });

  it('--keep-secrets-matching keeps the credentials a pattern matches, and a pattern that does not compile is named', () => {
    const keeping = new CredentialScrubber(keepPatterns(['^sk-proj-Ab3d']));
    const text = `${PLANTED['openai-api-key']} ${PLANTED['github-token']}`;
    expect(keeping.scrub(text)).toBe(`${PLANTED['openai-api-key']} <redacted>`);
    expect(() => keepPatterns(['(unclosed'])).toThrow(/^--keep-secrets-matching "\(unclosed" is not a valid regular expression: /);
  });

  it('a long run of prefixes costs one pass, not one per prefix', () => {
    // Quadratic scanning would take minutes here; linear takes milliseconds (vitest's timeout is the bound).
    const hostile = 'x' + 'sk-1'.repeat(200_000) + ' ' + 'eyJ'.repeat(300_000) + ' ' + 'ghp_'.repeat(200_000) + ' ' + '-----BEGIN PRIVATE KEY-----"'.repeat(20_000) + '-----END PRIVATE KEY-----';
    const found = scrubber.find(hostile);
    expect(new Set(found.map((h) => h.format))).toEqual(new Set(['private-key']));
  });
});
