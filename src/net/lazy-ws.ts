import { createRequire } from 'node:module';

type WsModule = typeof import('ws');

let loaded: WsModule | undefined;

/**
 * The ws library, loaded when the first WebSocket is relayed. Loading it takes ~14 ms of a
 * command's start on Node 20 (it brings node:https, node:tls, node:zlib and node:crypto), which a
 * recording of plain HTTP never needs. It is CommonJS, so it loads synchronously, in the upgrade's
 * own event.
 */
export function lazyWs(): WsModule {
  return (loaded ??= createRequire(import.meta.url)('ws') as WsModule);
}
