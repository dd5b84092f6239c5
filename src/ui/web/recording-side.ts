/**
 * Which recording a view reads: A, the one `proxy view` shows, or B, the `--diff` one, whose
 * exchanges the diff view links to. Each has its API prefix and its hash routes.
 */
export interface RecordingSide {
  key: 'a' | 'b';
  /** `/api` or `/api/b` */
  api: string;
  /** `#/exchange` or `#/b/exchange` */
  exchangeHash: string;
}

export const SIDE_A: RecordingSide = { key: 'a', api: '/api', exchangeHash: '#/exchange' };
export const SIDE_B: RecordingSide = { key: 'b', api: '/api/b', exchangeHash: '#/b/exchange' };
