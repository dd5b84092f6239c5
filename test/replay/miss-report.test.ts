import { describe, expect, it } from 'vitest';
import { reportedRequest } from '../../src/replay/miss-report.js';

const SECRET = 'sk-live-0123456789abcdef';

describe('reportedRequest', () => {
  it('redacts secret query parameters and JSON fields of a parsed body', () => {
    const shown = reportedRequest({ method: 'POST', path: '/run', query: `a=1&token=${SECRET}`, body: { apiKey: SECRET, keep: 'x' } });
    expect(shown).toEqual({ method: 'POST', path: '/run', query: 'a=1&token=%3Credacted%3E', body: { apiKey: '<redacted>', keep: 'x' } });
  });

  it('redacts secret fields in the quoted start of a body too long to echo whole', () => {
    const start = `{"model":"m","apiKey":"${SECRET}","messages":[{"content":"aaaa`;
    const shown = reportedRequest({ method: 'POST', path: '/run', query: '', body: start, bodyBytes: 5_000_000, bodyTruncated: true });
    expect(JSON.stringify(shown)).not.toContain(SECRET);
    expect(shown.body).toBe('{"model":"m","apiKey":"<redacted>","messages":[{"content":"aaaa');
  });

  it('replaces well-known credentials wherever they are: the query, a parsed body, a body quoted as text', () => {
    const key = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const shown = reportedRequest({ method: 'POST', path: '/run', query: `q=${key}`, body: { note: `use ${key}` } });
    expect(shown).toEqual({ method: 'POST', path: '/run', query: 'q=%3Credacted%3E', body: { note: 'use <redacted>' } });
    expect(reportedRequest({ method: 'POST', path: '/run', query: '', body: `plain ${key}` }).body).toBe('plain <redacted>');
  });

  it('returns the request itself when nothing is secret', () => {
    const request = { method: 'GET', path: '/x', query: 'page=2', body: 'plain text' };
    expect(reportedRequest(request)).toBe(request);
  });
});
