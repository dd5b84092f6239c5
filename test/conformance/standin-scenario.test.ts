import { describeWithCorpus, fullRegistry } from '../support/shared.js';
import { expect, it } from 'vitest';
import { piDaemonRpcProtocol } from '../../src/protocols/pi-daemon-rpc/index.js';
import { piRpcProtocol } from '../../src/protocols/pi-rpc/index.js';
import { piScenario } from '../support/pi-daemon/scenario.js';
import { Conversation } from '../protocols/pi-rpc/conversation.js';
import { judgeExchange, newJudge } from '../protocols/pi-rest/pi-rest-helpers.js';
import { restExchanges } from '../protocols/pi-rest/rest-exchanges.js';

/** What our stand-ins say, judged with the real extra schemas: they speak like the real daemon. */
describeWithCorpus('the stand-in scenario against the real schemas', () => {
  it('every REST exchange of our lifecycle, capabilities included, is valid', () => {
    const { judge } = newJudge(fullRegistry());
    for (const x of restExchanges()) {
      const verdicts = judgeExchange(judge, {
        method: x.request.method,
        path: x.request.path,
        requestHeaders: x.request.headers,
        requestBody: x.request.body,
        status: x.response.status,
        responseBody: x.response.body,
      });
      for (const verdict of [verdicts.request, verdicts.response]) {
        if (verdict) expect(verdict.status, `${x.label}: ${JSON.stringify(verdict.findings)}`).toBe('valid');
      }
    }
  });

  it('the attach_ready frame and both turns are valid, framed and raw', () => {
    const scenario = piScenario();
    const framed = new Conversation(piDaemonRpcProtocol, fullRegistry());
    expect(framed.server(scenario.attachReady)).toMatchObject({ status: 'valid', findings: [] });
    const raw = new Conversation(piRpcProtocol, fullRegistry());
    for (const [i, event] of [...scenario.toolTurnEvents, ...scenario.textTurnEvents].entries()) {
      expect(framed.server({ kind: 'event', cursor: `c-${i + 1}`, sequence: i + 1, event }).status).toBe('valid');
      expect(raw.server(event).status).toBe('valid');
    }
  });
});
