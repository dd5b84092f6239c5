/**
 * Well-known credential formats, as secret scanners know them: the distinctive prefix of each, and
 * what must follow it. Precise on purpose: a stored message mangled by a false match is a bug too,
 * so each format wants its prefix at the start of a token, a minimum length, and the end of a token
 * after it (`task-force`, `sk-learn`, `AKIA` in a sentence and a short `eyJ…` are left alone).
 */
export interface CredentialFormat {
  /** Stable id, named in findings and docs. */
  id: string;
  /** What the finding calls it. */
  name: string;
}

export const CREDENTIAL_FORMATS = {
  'anthropic-api-key': { id: 'anthropic-api-key', name: 'Anthropic API key (sk-ant-…)' },
  'openai-api-key': { id: 'openai-api-key', name: 'OpenAI API key (sk-…)' },
  'github-token': { id: 'github-token', name: 'GitHub token (ghp_…, gho_…, ghu_…, ghs_…, ghr_…)' },
  'github-pat': { id: 'github-pat', name: 'GitHub fine-grained token (github_pat_…)' },
  'aws-access-key-id': { id: 'aws-access-key-id', name: 'AWS access key id (AKIA…, ASIA…)' },
  'slack-token': { id: 'slack-token', name: 'Slack token (xox…-)' },
  'google-api-key': { id: 'google-api-key', name: 'Google API key (AIza…)' },
  jwt: { id: 'jwt', name: 'JSON Web Token (eyJ…)' },
  'private-key': { id: 'private-key', name: 'PEM private key block' },
} as const satisfies Record<string, CredentialFormat>;

export type CredentialFormatId = keyof typeof CREDENTIAL_FORMATS;

/** Characters of a token: a credential starts and ends where they do not. */
const TOKEN = 'A-Za-z0-9_\\-';
const END = `(?![${TOKEN}])`;

/**
 * `prefix` where a token starts: the lookbehind comes after the literal, so that the regex still
 * skips ahead by its first characters, and a prefix inside a longer token (`xsk-…`, `my_ghp_…`)
 * fails at once instead of scanning the rest of that token (which, for every `eyJ` of a long
 * base64 run, would be quadratic). A percent-escape before it (`q=a%20sk-…`) is a separator too.
 */
const starting = (prefix: string, before: string = TOKEN) => `${prefix}(?:(?<![${before}]${prefix})|(?<=%[0-9A-Fa-f]{2}${prefix}))`;

/**
 * All formats in one regex, one named group each: a text that holds none is scanned once, by one
 * regex whose every branch starts with a literal prefix. Branch order matters where prefixes
 * overlap: `sk-ant-` before `sk-`. Every branch is linear: the repetitions run over one token, and
 * a match ends where the token does.
 */
export const CREDENTIAL_PATTERN = new RegExp(
  [
    `(?<anthropickey>${starting('sk-ant-')}[${TOKEN}]{32,}${END})`,
    // Legacy keys are sk- and 48 letters and digits; project, service and admin keys are longer.
    // A digit is required (among the first 200 characters, so a long token costs one look): an
    // ordinary kebab-case word after `sk-` has none.
    `(?<openaikey>${starting('sk-')}(?=[${TOKEN}]{0,200}[0-9])[${TOKEN}]{32,}${END})`,
    `(?<github>${starting('gh[pousr]_')}[A-Za-z0-9]{36,255}${END})`,
    `(?<githubpat>${starting('github_pat_')}[A-Za-z0-9_]{50,255}${END})`,
    // Upper case and digits: a letter or digit around one makes it part of a word.
    `(?<aws>${starting('A[KS]IA', 'A-Za-z0-9')}[A-Z0-9]{16}(?![A-Za-z0-9]))`,
    `(?<slack>${starting('xox[abprs]-')}(?=[A-Za-z0-9-]{0,200}[0-9])[A-Za-z0-9-]{15,}${END})`,
    `(?<google>${starting('AIza')}[${TOKEN}]{35}${END})`,
    // Three base64url parts: a JSON header (`{"` is `eyJ`), a payload and a signature; not the tail of a dotted name.
    `(?<jwt>${starting('eyJ', `${TOKEN}.`)}[${TOKEN}]{10,}\\.[${TOKEN}]{10,}\\.[${TOKEN}]{10,}${END})`,
    // Only the header line here: the block's body is found by pemBlockEnd (its length is unbounded).
    `(?<pem>-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY-----)`,
  ].join('|'),
  'g',
);

/**
 * The quick look before CREDENTIAL_PATTERN: whether any prefix is there at all (no groups, no
 * lookarounds). Most stored texts (a header value, a short body) hold none and stop here.
 */
export const CREDENTIAL_PREFIX = /sk-|gh[pousr]_|github_pat_|A[KS]IA|xox[abprs]-|AIza|eyJ|-----BEGIN /;

/** The shortest credential of any format (an AWS key id, a Slack token): a shorter text holds none. */
export const MIN_CREDENTIAL_LENGTH = 20;

/** Group name → format id. */
export const GROUP_FORMATS: Readonly<Record<string, CredentialFormatId>> = {
  anthropickey: 'anthropic-api-key',
  openaikey: 'openai-api-key',
  github: 'github-token',
  githubpat: 'github-pat',
  aws: 'aws-access-key-id',
  slack: 'slack-token',
  google: 'google-api-key',
  jwt: 'jwt',
  pem: 'private-key',
};

/** The most a PEM block's body may span before its END line is looked for no further. */
const MAX_PEM_BODY = 64 * 1024;

/**
 * Where a PEM block that starts its body at `from` ends: after its `-----END … PRIVATE KEY-----`
 * line, or (no END line: the message was cut) after the run of base64, whitespace and escaped line
 * breaks that follows the header. `ends` remembers, for one text, where the next END line is: many
 * headers look it up once, not once each.
 */
export function pemBlockEnd(text: string, from: number, ends: { at: number }): number {
  if (ends.at !== -1 && ends.at < from) ends.at = text.indexOf('-----END ', from);
  const endLine = ends.at;
  if (endLine >= 0 && endLine - from <= MAX_PEM_BODY) {
    const close = /^-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY-----/.exec(text.slice(endLine, endLine + 64));
    if (close) return endLine + close[0].length;
  }
  let at = from;
  while (at < text.length && at - from <= MAX_PEM_BODY && isPemBodyChar(text.charCodeAt(at))) at++;
  // Never end on the first half of an escape (`` of `\"`): the JSON text around it must stay valid.
  let backslashes = 0;
  while (backslashes < at - from && text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
  return backslashes % 2 === 1 ? at - 1 : at;
}

/** Base64, whitespace, and what an escaped line break or a PEM header (`Proc-Type: 4,ENCRYPTED`) adds. */
function isPemBodyChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x2b || // +
    c === 0x2f || // /
    c === 0x3d || // =
    c === 0x20 ||
    c === 0x09 ||
    c === 0x0a ||
    c === 0x0d ||
    c === 0x5c || // \ of an escaped \n
    c === 0x3a || // :
    c === 0x2c || // ,
    c === 0x2d // -
  );
}
