/** How bad a finding is. Errors are what the official client or the spec rejects; warnings are what they only warn about. */
export type Severity = 'error' | 'warning';

/** One problem found in one message: which rule, where (RFC 6901 pointer into the message), and a readable sentence. */
export interface Finding {
  rule: string;
  severity: Severity;
  pointer: string;
  message: string;
}

export function error(rule: string, pointer: string, message: string): Finding {
  return { rule, severity: 'error', pointer, message };
}

export function warning(rule: string, pointer: string, message: string): Finding {
  return { rule, severity: 'warning', pointer, message };
}

/** Escapes one reference token for a JSON pointer (RFC 6901 §3). */
export function pointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointerOf(...tokens: Array<string | number>): string {
  return tokens.length === 0 ? '' : '/' + tokens.map(pointerToken).join('/');
}
