import { PROTOCOLS, viewsOf } from '../../protocols/modules.js';
import type { ExchangeViews } from '../../protocols/inspector-views.js';

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
