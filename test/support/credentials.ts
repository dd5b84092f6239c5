/**
 * One made-up credential of each well-known format (core/credential-formats.ts), as an agent would
 * send it, for tests that plant them in traffic and look for them wherever a recording goes.
 */
export const PLANTED = {
  'openai-api-key': 'sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGH',
  'openai-legacy': 'sk-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGHijkl',
  'anthropic-api-key': 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh-AA',
  'github-token': 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
  'github-oauth': 'gho_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
  'github-pat': 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  'aws-access-key-id': 'AKIAIOSFODNN7EXAMPLE',
  'aws-session-key-id': 'ASIAY34FZKBOKMUTVV7A',
  'slack-token': 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  'google-api-key': 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  'private-key': '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn\n/ygWyF8PbnGy0AHB7MhgwLOE=\n-----END RSA PRIVATE KEY-----',
} as const;

/** Every planted credential that fits on one line (a header value, a URL, a line of text). */
export const ONE_LINE: readonly string[] = Object.values(PLANTED).filter((value) => !value.includes('\n'));

/** What to look for of each planted credential: itself, and each line of a multi-line one (stored JSON escapes line breaks). */
export const NEEDLES: readonly string[] = Object.values(PLANTED).flatMap((value) => [value, ...value.split('\n').filter((line) => line.length >= 16)]);
