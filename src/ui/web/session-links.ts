import { fmtMs, h } from './dom.js';

/** What a session tab's renderers need of the page: the exchange's start, and the route to a message. */
export interface SessionCtx {
  startedMs: number;
  /** The route that selects message `seq` in this view. */
  link: (seq: number) => string;
  /** The route to message `seq` of another exchange (an MCP session over HTTP spans many). */
  linkIn?: (exchangeId: number, seq: number) => string;
}

/** `#seq` linking to the message, or a dash for none. */
export const seqLink = (seq: number | null, ctx: SessionCtx): HTMLElement => (seq === null ? h('span', { class: 'dim' }, '–') : h('a', { href: ctx.link(seq) }, `#${seq}`));

/** A recording-clock offset as time since the exchange started (`+12 ms`). */
export const at = (ms: number | null, ctx: SessionCtx): string => (ms === null ? '' : `+${fmtMs(ms - ctx.startedMs)}`);

/** The seqs a row stands for, as its `data-seqs` (the selection marks rows by them). */
export const seqs = (...list: Array<number | null>): string => list.filter((s) => s !== null).join(' ');

/** `#exchange:seq` linking to a message of another exchange of the session; `#seq` for this one's. */
export const seqLinkIn = (exchangeId: number | undefined, seq: number | null, ctx: SessionCtx): HTMLElement => {
  if (exchangeId === undefined || seq === null || ctx.linkIn === undefined) return seqLink(seq, ctx);
  return h('a', { href: ctx.linkIn(exchangeId, seq), title: `message ${seq} of exchange ${exchangeId}` }, `#${exchangeId}:${seq}`);
};
