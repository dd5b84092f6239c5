import { describe, expect, it } from 'vitest';
import { count } from '../../src/core/plural.js';
import { exchangeVerdict } from '../../src/core/exchange-verdict.js';
import { outcomeText } from '../../src/core/exchange-ending.js';
import { totalsText } from '../../src/cli/totals-text.js';

describe('counts the CLI prints', () => {
  it('puts a noun in the number its count needs', () => {
    expect([0, 1, 2].map((n) => count(n, 'finding'))).toEqual(['0 findings', '1 finding', '2 findings']);
    expect(count(1, 'miss', 'misses')).toBe('1 miss');
    expect(count(3, 'miss', 'misses')).toBe('3 misses');
    expect(totalsText({ exchanges: 1, messages: 1, invalid: 1, findings: 1 })).toBe('1 exchange, 1 message, 1 invalid, 1 finding');
    expect(totalsText({ exchanges: 2, messages: 0, invalid: 0, findings: 3 }, ' · ')).toBe('2 exchanges · 0 messages · 0 invalid · 3 findings');
  });

  it('sums up an exchange: valid only when something was checked and nothing failed', () => {
    const text = (messages: number, invalid: number, unchecked: number) => exchangeVerdict({ messages, invalid, unchecked }).text;
    expect(text(0, 0, 0)).toBe('no messages');
    expect(text(8, 0, 8)).toBe('unchecked');
    expect(text(1, 0, 1)).toBe('unchecked');
    expect(text(5, 0, 2)).toBe('valid, 2 unchecked');
    expect(text(5, 0, 0)).toBe('valid');
    expect(text(5, 2, 0)).toBe('2 invalid');
    expect(text(5, 1, 3)).toBe('1 invalid, 3 unchecked');
    expect(exchangeVerdict({ messages: 8, invalid: 0, unchecked: 8 }).kind).toBe('unchecked');
  });

  it('says who ended an exchange that did not complete', () => {
    expect(outcomeText('aborted', 'E_CLIENT_ABORTED')).toBe('aborted by the client');
    expect(outcomeText('aborted', 'E_PROXY_SHUTDOWN')).toBe('cut by proxy shutdown');
    expect(outcomeText('aborted', 'E_UPSTREAM_RESET')).toBe('aborted by the upstream');
    expect(outcomeText('aborted', null)).toBe('aborted');
    expect(outcomeText('complete', null)).toBe('complete');
    expect(outcomeText(null, null)).toBe('open');
  });
});
