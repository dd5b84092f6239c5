import { describeWithCorpus, corpusJson, fullRegistry } from '../support/shared.js';
import { expect, it } from 'vitest';
import type { Sender } from '../../src/core/message.js';
import { acpProtocol } from '../../src/protocols/acp/index.js';
import { MessageJudge } from '../../src/judge/message-judge.js';
import { SecretTracker } from '../../src/judge/secret-tracker.js';
import { ACP_SCHEMA_ID } from '../../src/protocols/acp/schemas.js';

interface WsRecord {
  kind: string;
  dir?: 'client->server' | 'server->client';
  data?: unknown;
  verdict?: { valid: boolean; acp?: { valid: boolean } };
}

const capture = corpusJson<{ records: WsRecord[] }>({ records: [] }, 'fixtures', 'pi-daemon', 'captured', 'acp-websocket.json');
const frames = capture.records.filter((r) => r.kind === 'ws');
const senderOf = (dir: WsRecord['dir']): Sender => (dir === 'client->server' ? 'client' : 'server');

describeWithCorpus('ACP: captured /apc traffic', () => {
  it('judges every frame as its recorded verdict says, with no behavioural findings', () => {
    // All 27 frames the notes describe: a capture that failed to load would pass vacuously.
    expect(frames).toHaveLength(27);
    const secrets = new SecretTracker();
    const judge = new MessageJudge(acpProtocol.createChecker({ registry: fullRegistry(), secrets }), secrets);
    for (const [i, frame] of frames.entries()) {
      const verdict = judge.judge({ sender: senderOf(frame.dir), carrier: 'frame', value: frame.data, text: JSON.stringify(frame.data) });
      const expected = frame.verdict!.valid && frame.verdict!.acp!.valid ? 'valid' : 'invalid';
      expect({ i, status: verdict.status, findings: verdict.findings }).toEqual({ i, status: expected, findings: [] });
    }
    expect(judge.end('complete')).toEqual([]);
  });

  it('checks requests, results and notifications against their per-method $defs', () => {
    const checker = acpProtocol.createChecker({ registry: fullRegistry(), secrets: new SecretTracker() });
    const refs = frames.map((f) => checker.judge({ sender: senderOf(f.dir), carrier: 'frame', value: f.data }).schemaRef);
    const defs = new Set(refs.map((r) => r?.replace(`${ACP_SCHEMA_ID}#/$defs/`, '')));
    for (const name of ['InitializeRequest', 'InitializeResponse', 'LoadSessionRequest', 'LoadSessionResponse', 'PromptRequest', 'PromptResponse', 'SessionNotification', 'Error']) {
      expect(defs).toContain(name);
    }
    // The unknown method is checked by the Pi envelope only.
    const unknown = frames.findIndex((f) => (f.data as { method?: string }).method === 'no/such_method');
    expect(refs[unknown]).toMatch(/session-api\.schema\.json#\/\$defs\/jsonRpcMessage$/);
  });

  it('guesses the sender of each captured frame from its shape', () => {
    for (const frame of frames) {
      const data = frame.data as { method?: string };
      // A response alone does not say who answered; the module guesses the agent.
      if (data.method === undefined) expect(acpProtocol.guessSender(frame.data)).toBe('server');
      else expect(acpProtocol.guessSender(frame.data)).toBe(senderOf(frame.dir));
    }
  });
});
