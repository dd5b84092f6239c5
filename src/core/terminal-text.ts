/**
 * Text we quote back on a terminal (a flag's value, an environment variable, a peer's message) may
 * hold escape sequences, a bell or a carriage return: printed raw, they would clear the screen or
 * rewrite the line the user is reading. Each C0 and C1 control character and DEL is shown as an
 * escape instead (`\e`, `\t`, `\x07`, `\u009b`), so the line says exactly what was given.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (char) => NAMED[char] ?? escapeCode(char.charCodeAt(0)));
}

// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\u001b': '\\e' };

function escapeCode(code: number): string {
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
