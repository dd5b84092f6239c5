import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ErrorCode, ExchangeErrorCode, ProxyError, StoreErrorCode } from '../../src/core/errors.js';
import { StoreError } from '../../src/store/store-errors.js';

const doc = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const RECORDING_FORMAT = doc('docs/recording-format.md');

/** The codes in the first column of the `### error_code` table of docs/recording-format.md. */
function documentedExchangeCodes(): string[] {
  const section = RECORDING_FORMAT.split(/^### error_code$/m)[1];
  expect(section, 'docs/recording-format.md has an error_code section').toBeDefined();
  const table = section.split(/\n\s*\n/).find((block) => block.trimStart().startsWith('|'))!;
  return [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
}

describe('error codes', () => {
  it('names each code as its value, so the constant is the string a recording or a caller sees', () => {
    for (const list of [ErrorCode, StoreErrorCode, ExchangeErrorCode]) {
      for (const [name, value] of Object.entries(list)) expect(value).toBe(name);
      expect(Object.isFrozen(list)).toBe(true);
    }
  });

  it('refuses a misspelt code at compile time (checked by the test type-check)', () => {
    // @ts-expect-error: there is no such code
    expect(ExchangeErrorCode.E_UPSTREAM_RESTE).toBeUndefined();
    // @ts-expect-error: there is no such code
    const stored: ExchangeErrorCode = 'E_CLIENT_ABORT';
    expect(stored).not.toBe(ExchangeErrorCode.E_CLIENT_ABORTED);
  });

  it('lists every store code among the codes raised, and keeps raised and stored codes apart', () => {
    for (const code of Object.keys(StoreErrorCode)) expect(Object.keys(ErrorCode)).toContain(code);
    for (const code of Object.keys(ExchangeErrorCode)) expect(Object.keys(ErrorCode)).not.toContain(code);
  });

  it('keeps the codes the error classes were documented with', () => {
    expect(new StoreError('E_STORE_OPEN', 'run.db', 'cannot open run.db')).toMatchObject({ code: 'E_STORE_OPEN', file: 'run.db', name: 'StoreError' });
    expect(new ProxyError('E_LISTEN', 'in use')).toMatchObject({ code: 'E_LISTEN', name: 'ProxyError' });
    expect(Object.keys(StoreErrorCode).sort()).toEqual(['E_STORE_EXISTS', 'E_STORE_LOCKED', 'E_STORE_NATIVE', 'E_STORE_NOT_RECORDING', 'E_STORE_OPEN', 'E_STORE_STATE', 'E_STORE_VERSION', 'E_STORE_WRITE']);
  });

  it('documents exactly the exchange codes a recording can hold', () => {
    expect(documentedExchangeCodes().sort()).toEqual(Object.keys(ExchangeErrorCode).sort());
  });

  it('documents every store error code in the recording format', () => {
    for (const code of Object.keys(StoreErrorCode)) expect(RECORDING_FORMAT, code).toContain(`\`${code}\``);
  });

  it('names no code in the README or docs/ that the errors module does not have', () => {
    const known = new Set([...Object.keys(ErrorCode), ...Object.keys(ExchangeErrorCode)]);
    const docs = ['README.md', ...readdirSync(new URL('../../docs/', import.meta.url)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    for (const path of docs) {
      for (const [code] of doc(path).matchAll(/\bE_[A-Z][A-Z_]*\b/g)) expect(known, `${path} names ${code}`).toContain(code);
    }
  });
});
