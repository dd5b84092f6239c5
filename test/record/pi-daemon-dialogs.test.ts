/**
 * `proxy record` in front of an extension UI dialog on a daemon session with two framed attachments.
 * The request is an event every attachment sees; the daemon takes only the controller's answer and
 * refuses an observer's with `controller_required`. The refused answer answers nothing, so the
 * controller's answer that follows is the real one, and valid.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/waits.js';
import { bearer, daemon, record, useCleanups, wsExchanges, wsOpen, type WsSession } from './pi-helpers.js';

useCleanups();

const frames = (c: WsSession) => c.frames.map((f) => JSON.parse(f) as { kind: string; event?: Record<string, unknown>; response?: Record<string, unknown> });
const acks = (c: WsSession) => frames(c).filter((f) => f.kind === 'response' && f.response!.command === 'extension_ui_response').map((f) => f.response!);
const answer = (id: string) => JSON.stringify({ kind: 'extension_ui_response', response: { type: 'extension_ui_response', id, confirmed: true } });

describe('proxy record: an extension UI dialog answered by an observer, then by the controller', () => {
  it("the observer's refused answer does not answer the request: the controller's is valid, and no finding", async () => {
    const d = await daemon({ confirmBeforeTurn: true, rpcTurn: 'text' });
    const rec = await record(d.url);
    const attach = (role: string) => wsOpen(`${rec.wsUrl}/v1/session/agent-a/rpc?role=${role}`, 'pi-daemon-rpc.v1', { headers: bearer(d.token) });
    const controller = await attach('controller');
    const observer = await attach('observer');
    await controller.take(1);
    await observer.take(1);

    controller.ws.send(JSON.stringify({ kind: 'command', command: { id: 'p-1', type: 'prompt', message: 'Say hello' } }));
    await waitFor(() => frames(observer).some((f) => f.event?.type === 'extension_ui_request'), 'the observer to see the dialog');
    const request = frames(observer).find((f) => f.event?.type === 'extension_ui_request')!.event!;

    observer.ws.send(answer(request.id as string));
    await waitFor(() => acks(observer).length === 1, "the daemon's answer to the observer");
    expect(acks(observer)).toEqual([expect.objectContaining({ success: false, error: 'controller_required' })]);

    controller.ws.send(answer(request.id as string));
    await waitFor(() => frames(controller).some((f) => f.event?.type === 'agent_settled'), 'the turn the answer let through');
    expect(acks(controller)).toEqual([expect.objectContaining({ success: true })]);

    controller.ws.close(1000);
    observer.ws.close(1000);
    const reader = await rec.finish();
    const connections = wsExchanges(reader);
    expect(connections).toHaveLength(2);
    const answers = connections.flatMap((e) => reader.messages(e.id)).filter((m) => (m.json as { kind?: string } | undefined)?.kind === 'extension_ui_response');
    expect(answers.map((m) => [m.sender, m.verdict.status, m.verdict.findings])).toEqual([
      ['client', 'valid', []],
      ['client', 'valid', []],
    ]);
    expect([...reader.findings()]).toEqual([]);
  });
});
