import type { ExchangeVerdict } from '../core/exchange-verdict.js';
import type { Style } from '../core/style.js';

/** An exchange's verdict summary in its colour: red when invalid, yellow when nothing could be judged. */
export function styledVerdict(verdict: ExchangeVerdict, style: Style): string {
  switch (verdict.kind) {
    case 'invalid':
      return style.red(verdict.text);
    case 'unchecked':
      return style.yellow(verdict.text);
    case 'valid':
      return style.green(verdict.text);
    default:
      return style.dim(verdict.text);
  }
}
