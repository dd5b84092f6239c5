import { describeWithCorpus, corpusJson, readSharedJson } from '../support/shared.js';
import { afterEach, expect, it } from 'vitest';
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import { materializeRun } from '../../src/protocols/agui/materialize.js';
import { startAguiAgent, type AguiAgent } from '../support/agui-agent.js';

/**
 * The AG-UI run model against @ag-ui/client 1.0.0 on every shared fixture the client completes (the
 * conformance streams and the real .NET captures): the official HttpAgent reads each over a real
 * socket, and the model, given the same events and the request the client sent, holds the same
 * messages and state. The two streams the client rejects are left out: it stops applying them.
 */
const REJECTED = new Set(['spec-event-after-run-finished-fatal.json', 'spec-subagent-attribution-mismatch-fatal.json']);
const FIXTURES = corpusJson<Array<{ file: string }>>([], 'fixtures', 'agui', 'MANIFEST.json')
  .map((entry) => entry.file)
  .filter((file) => !REJECTED.has(file));

describeWithCorpus('the run model holds what @ag-ui/client holds, on the shared AG-UI fixtures', () => {
  let standIn: AguiAgent | undefined;
  afterEach(async () => {
    await standIn?.close();
    standIn = undefined;
  });

  it('covers the fixtures the client completes', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(20);
  });

  for (const file of FIXTURES) {
    it(file, async () => {
      const events = readSharedJson<BaseEvent[]>('fixtures', 'agui', file);
      standIn = await startAguiAgent({ script: () => events });
      const agent = new HttpAgent({ url: `${standIn.url}/agent`, initialMessages: [{ id: 'u1', role: 'user', content: 'Hi' }], initialState: { seed: 1 } });
      // The client warns on what the fixtures exercise (a failing patch, a pending interrupt); not ours to print.
      const warn = console.warn;
      console.warn = () => undefined;
      try {
        await agent.runAgent();
      } finally {
        console.warn = warn;
      }
      const run = materializeRun(events, standIn.requests[0].body);
      expect(run.messages).toEqual(agent.messages);
      expect(run.state).toEqual(agent.state);
    });
  }
});
