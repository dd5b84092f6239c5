import { describeWithCorpus, corpusJson, fullRegistry, readSharedJson } from '../support/shared.js';
import { expect, it } from 'vitest';
import { piDaemonRpcProtocol } from '../../src/protocols/pi-daemon-rpc/index.js';
import { piRpcProtocol } from '../../src/protocols/pi-rpc/index.js';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import { Conversation } from '../protocols/pi-rpc/conversation.js';

interface ManifestEntry {
  file: string;
  schemaRef: string | null;
  expectValid?: boolean;
}

const manifest = corpusJson<{ entries: ManifestEntry[] }>({ entries: [] }, 'fixtures', 'pi-daemon', 'upstream-v0.3.0', 'manifest.json');
const RPC_ENTRIES = manifest.entries.filter((e) => e.file.startsWith('session-api/rpc.') && e.schemaRef !== null);
const RAW_DEFS = new Set(['piRpcCommand', 'piRpcResponse', 'piRpcEvent']);

/** The manifest names refs relative to the file name; the registry addresses them by $id. */
function absoluteRef(ref: string): string {
  return ref.replace(/^session-api\.schema\.json#/, `${PI_SESSION_API_ID}#`);
}

describeWithCorpus('upstream pi-daemon v0.3.0 contract fixtures (session-api/rpc.*)', () => {
  for (const entry of RPC_ENTRIES) {
    it(`${entry.file}: judged against ${entry.schemaRef}, expectValid ${entry.expectValid}`, () => {
      const value = readSharedJson<Record<string, unknown>>('fixtures', 'pi-daemon', 'upstream-v0.3.0', entry.file);
      const def = entry.schemaRef!.split('/').pop()!;
      const module = RAW_DEFS.has(def) ? piRpcProtocol : piDaemonRpcProtocol;
      // A lone fixture is a message out of context: the module guesses its direction, a fresh
      // checker judges it, and only its schema part is compared (a lone response answers no
      // command, a lone event precedes attach_ready).
      const verdict = new Conversation(module, fullRegistry()).send(module.guessSender(value), value);
      expect(verdict.schemaRef).toBe(absoluteRef(entry.schemaRef!));
      expect(verdict.findings.filter((f) => f.rule === 'schema').length === 0).toBe(entry.expectValid);
    });
  }

  it('judges the client-side and handshake frames fully valid on a fresh connection', () => {
    for (const file of ['rpc.ready.frame.json', 'rpc.command.frame.json', 'rpc.extension-ui-response.frame.json', 'rpc.tree-navigate.frame.json']) {
      const value = readSharedJson('fixtures', 'pi-daemon', 'upstream-v0.3.0', 'session-api', file);
      const verdict = new Conversation(piDaemonRpcProtocol, fullRegistry()).send(piDaemonRpcProtocol.guessSender(value), value);
      // The extension UI answer names a request this connection never saw: a warning only.
      expect(verdict.status, file).toBe('valid');
    }
  });

  it('judges a replay_gap, attach_ready, then the event frame as one valid connection', () => {
    const read = (file: string) => readSharedJson('fixtures', 'pi-daemon', 'upstream-v0.3.0', 'session-api', file);
    const channel = new Conversation(piDaemonRpcProtocol, fullRegistry());
    for (const file of ['rpc.replay-gap.frame.json', 'rpc.ready.frame.json', 'rpc.event.frame.json']) {
      expect(channel.server(read(file)), file).toMatchObject({ status: 'valid', findings: [] });
    }
    // The upstream control fixture is control_granted for "connection-4", which attach_ready announced.
    expect(channel.server(read('rpc.control.frame.json'))).toMatchObject({ status: 'valid', findings: [] });
    expect(channel.end()).toEqual([]);
  });
});
