/**
 * `proxy record` of plain HTTP does not load the WebSocket library: ws brings node:https, node:tls,
 * node:zlib and node:crypto, ~14 ms of the start on Node 20. It is loaded when the first upgrade
 * arrives (the WebSocket recording tests relay through the same code).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { modulesLoadedBy } from '../support/loaded-modules.js';
import { scratch } from '../support/temp-dir.js';

describe('record start-up', () => {
  it('records plain HTTP through the built recorder without loading ws', async () => {
    const out = scratch('record-startup-').file('plain.db');
    const probe = `
      const { createServer } = await import('node:http');
      const upstream = createServer((req, res) => res.end('{"ok":true}'));
      await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      const { startRecorder } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist/record/start-recorder.js')).href)});
      const recorder = await startRecorder({ target: 'http://127.0.0.1:' + upstream.address().port, listen: 0, out: ${JSON.stringify(out)} });
      const answer = await fetch(recorder.url + '/health');
      await answer.text();
      const totals = await recorder.close();
      upstream.close();
      console.log(answer.status + ' ' + totals.exchanges);
    `;
    const loaded = await modulesLoadedBy(probe, '200 1');
    // The probe saw the recorder's own modules: the list is not empty for want of hooks.
    expect(loaded.some((m) => m.endsWith('/dist/record/relay/ws-relay.js'))).toBe(true);
    expect(loaded.filter((m) => /\/node_modules\/ws\//.test(m))).toEqual([]);
  });
});
