import { loadFacts, UNBOUND_CHANNELS } from '../protocols/loaded-facts.js';
import type { ProtocolId } from '../protocols/catalog.js';
import { httpExchanges, type ReplayScript } from './replay-script.js';
import { planSessions } from './http/recorded-sessions.js';

/**
 * Loads the protocols' facts a replay of `script` serves its recorded exchanges with: its exchanges'
 * own protocols', and the protocol of a recorded session an exchange without one joins (it is played
 * as that protocol's); every protocol's when a message was stored on a channel of a wire binding
 * (found by its channel). A request that matches nothing loads them all (loadFacts()) before its
 * protocol is told.
 */
export async function loadReplayFacts(script: ReplayScript): Promise<void> {
  if (script.exchanges.some((exchange) => exchange.messages.some((message) => !UNBOUND_CHANNELS.has(message.channel)))) return loadFacts();
  const protocols = new Set<ProtocolId>();
  for (const exchange of script.exchanges) if (exchange.protocol !== undefined) protocols.add(exchange.protocol);
  if (script.exchanges.some((exchange) => exchange.protocol === undefined)) {
    for (const session of planSessions(httpExchanges(script)).sessions) protocols.add(session.protocol);
  }
  await loadFacts(protocols);
}
