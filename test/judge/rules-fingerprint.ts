/**
 * A fingerprint of what decides a verdict, cheap to compute from the tree: the rule tables (every
 * `*rules*.ts` under src/protocols, and the exchange's own findings), each rule id and severity where
 * a finding is made (`error(RULES.L1, …)`, `warning('tool-call-result-unknown', …)`), the code that
 * picks a message type's schema (`src/protocols/**\/*schema*.ts`) and the shipped schemas, byte for
 * byte. Comments and layout do not count. Pinned with RULES_VERSION in rules-fingerprint.pin.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const PIN_FILE = fileURLToPath(new URL('./rules-fingerprint.pin', import.meta.url));
export const UPDATE_COMMAND = 'UPDATE_RULES_PIN=1 npx vitest run test/judge/rules-version.test.ts';

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(REPO, dir), { withFileTypes: true, recursive: true })) {
    const path = relative(REPO, join(entry.parentPath, entry.name));
    if (entry.isFile() && keep(path)) out.push(path);
  }
  return out.sort();
}

/** The code without its comments and layout: a reworded comment is no new rule. */
function codeOnly(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Where findings are made, as `severity(first argument)`, counted (moving a call between files is no change). */
function findingCalls(): string[] {
  const calls: string[] = [];
  for (const file of ['protocols', 'judge', 'schema', 'core', 'validate'].flatMap((d) => filesUnder(`src/${d}`, (p) => p.endsWith('.ts')))) {
    for (const match of codeOnly(readFileSync(join(REPO, file), 'utf8')).matchAll(/\b(error|warning)\(\s*([A-Za-z_$][\w$.]*|'[^']*'|`[^`]*`)/g)) calls.push(`${match[1]}(${match[2]})`);
  }
  return calls.sort();
}

/** The parts of the fingerprint, each hashed, so that a failure can say which part changed. */
export function rulesFingerprintParts(): Record<string, string> {
  const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);
  const tables = filesUnder('src/protocols', (p) => /rules[^/]*\.ts$/.test(p)).concat('src/core/exchange-findings.ts');
  const schemaCode = filesUnder('src/protocols', (p) => /schema[^/]*\.ts$/.test(p));
  const schemas = filesUnder('schemas', (p) => p.endsWith('.json'));
  return {
    'rule tables': hash(tables.map((f) => `${f}\n${codeOnly(readFileSync(join(REPO, f), 'utf8'))}`).join('\n')),
    'finding calls': hash(findingCalls().join('\n')),
    'schema choice': hash(schemaCode.map((f) => `${f}\n${codeOnly(readFileSync(join(REPO, f), 'utf8'))}`).join('\n')),
    'shipped schemas': hash(schemas.map((f) => `${f} ${createHash('sha256').update(readFileSync(join(REPO, f))).digest('hex')}`).join('\n')),
  };
}

/** The pin's one line: `rules-version N fingerprint <hash of the parts>`. */
export function pinLine(version: number, parts: Record<string, string>): string {
  const whole = createHash('sha256').update(Object.entries(parts).map(([k, v]) => `${k}=${v}`).join('\n')).digest('hex').slice(0, 32);
  return `rules-version ${version} fingerprint ${whole}`;
}
