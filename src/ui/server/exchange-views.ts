import { PROTOCOLS } from '../../protocols/modules.js';
import type { ExchangeViews, ProtocolViews } from '../../protocols/inspector-views.js';

/** The views the protocol of an exchange declares; undefined for none, or an id this build does not know (a newer recording's). */
export function viewsOf(protocol: string | null): ProtocolViews | undefined {
  return protocol === null ? undefined : PROTOCOLS.find((p) => p.id === protocol)?.views;
}

/** Which views an exchange has, as `GET /api/exchanges/:id` tells the page. */
export function exchangeViews(protocol: string | null): ExchangeViews {
  const views = viewsOf(protocol);
  return { tab: views?.tab === undefined ? null : { route: views.tab.route, label: views.tab.label }, state: views?.stateAt !== undefined, answer: views?.answer !== undefined };
}

/** The protocols whose tab is drawn by `route`, in the catalog's order, for an error that names them (`pi-rpc and acp do`). */
export function protocolsWithTab(route: 'run' | 'session'): string {
  return named(PROTOCOLS.filter((p) => p.views?.tab?.route === route).map((p) => p.id));
}

/** The protocols that assemble model answers, for an error that names them (`openai does`). */
export function protocolsWithAnswer(): string {
  return named(PROTOCOLS.filter((p) => p.views?.answer !== undefined).map((p) => p.id));
}

function named(ids: string[]): string {
  if (ids.length === 0) return 'none does';
  return ids.length === 1 ? `${ids[0]} does` : `${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]} do`;
}
