/**
 * A replay loads what it serves and nothing more: no checker, schema compiler, recorder, protobuf
 * encoder, WebSocket library, TLS or node:crypto (a live session's id and --proxy-auth load it when
 * they need it) for a recording of plain HTTP served without TLS (they cost most of its start-up), and
 * yet it still answers a WebSocket upgrade, loading the player when the upgrade arrives.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startReplay } from '../../src/replay/start-replay.js';
import { REPO } from '../cli/run-cli.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { writeNdjsonRecording, type HandExchange } from '../support/ndjson-recording.js';
import { within } from '../support/waits.js';
import { modulesLoadedBy } from '../support/loaded-modules.js';
import { wsRefusal } from '../support/ws-client.js';

useCleanups();

const HTTP_ONLY: HandExchange[] = [
  { transport: 'http', method: 'GET', path: '/health', status: 200, responseHeaders: { 'content-type': 'application/json' }, messages: [{ sender: 'server', json: { ok: true } }] },
];

/** Starts the built replay in a child, answers one request, and lists what it loaded (ESM imports and CommonJS requires). */
function modulesOfReplay(recording: string): Promise<string[]> {
  const probe = `
    const { startReplay } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist/replay/start-replay.js')).href)});
    const replay = await startReplay({ recording: ${JSON.stringify(recording)}, listen: 0, timing: 'none' });
    const answer = await fetch(replay.url + '/health');
    await answer.text();
    await replay.close();
    console.log(answer.status);
  `;
  return modulesLoadedBy(probe, '200');
}

describe('replay start-up', () => {
  it('serves a recording of plain HTTP without loading checkers, schemas, the recorder, protobuf, ws or TLS', async () => {
    const loaded = await modulesOfReplay(writeNdjsonRecording(HTTP_ONLY, 'http-only.ndjson'));
    // The probe saw the replay's own modules, and SQLite, which it needs.
    expect(loaded.some((m) => m.endsWith('/dist/replay/replay-server.js'))).toBe(true);
    expect(loaded.some((m) => m.includes('/node_modules/better-sqlite3/'))).toBe(true);
    const unwanted = loaded.filter((m) =>
      /\/node_modules\/(ws|ajv|@ag-ui\/proto|@ag-ui\/core|zod|fast-json-patch|@agentclientprotocol)\/|\/dist\/record\/|\/dist\/schema\/(?!schema-sources\.js)|\/dist\/protocols\/modules\.js|-checker\.js$|\/checker\.js$|^node:(https|tls|crypto|child_process)$/.test(m),
    );
    expect(unwanted).toEqual([]);
  });

  it('answers a WebSocket upgrade to a recording without WebSocket exchanges, as a miss', async () => {
    const replay = await startReplay({ recording: writeNdjsonRecording(HTTP_ONLY, 'http-only.ndjson'), listen: 0, timing: 'none' });
    onCleanup(() => replay.close().then(() => undefined));
    const refusal = await within(wsRefusal(`${replay.wsUrl}/rpc`, []), 'the upgrade to be refused');
    expect(refusal.status).toBe(404);
    expect(replay.misses()).toHaveLength(1);
  });
});
