import { describe, expect, it } from 'vitest';
import { ACP_METHODS } from '../../../src/protocols/acp/index.js';
import { ACP_SCHEMA_ID } from '../../../src/protocols/acp/schemas.js';
import { testRegistry } from '../../support/shared.js';

describe('ACP method table', () => {
  it('is built from the x-method / x-side annotations of the packaged schema', () => {
    expect(ACP_METHODS.get('session/prompt')).toEqual({
      method: 'session/prompt',
      request: { def: 'PromptRequest', side: 'agent' },
      response: { def: 'PromptResponse', side: 'agent' },
    });
    expect(ACP_METHODS.get('session/update')).toEqual({ method: 'session/update', notification: { def: 'SessionNotification', side: 'client' } });
    expect(ACP_METHODS.get('session/cancel')).toEqual({ method: 'session/cancel', notification: { def: 'CancelNotification', side: 'agent' } });
    expect(ACP_METHODS.get('fs/read_text_file')?.request).toEqual({ def: 'ReadTextFileRequest', side: 'client' });
    expect(ACP_METHODS.get('$/cancel_request')?.notification).toEqual({ def: 'CancelRequestNotification', side: 'protocol' });
    expect(ACP_METHODS.get('mcp/message')).toMatchObject({ request: { side: 'both' }, response: { side: 'both' }, notification: { side: 'both' } });
    expect(ACP_METHODS.get('no/such_method')).toBeUndefined();
  });

  it('covers every stable v1 method the notes list', () => {
    const stable = [
      'initialize', 'authenticate', 'session/new', 'session/load', 'session/set_mode', 'session/set_config_option', 'session/prompt',
      'session/cancel', 'session/list', 'session/delete', 'session/resume', 'session/close', 'logout', 'session/request_permission',
      'session/update', 'fs/read_text_file', 'fs/write_text_file', 'terminal/create', 'terminal/output', 'terminal/release',
      'terminal/wait_for_exit', 'terminal/kill', 'elicitation/create', 'elicitation/complete', '$/cancel_request',
    ];
    for (const method of stable) expect(ACP_METHODS.get(method), method).toBeDefined();
  });

  it('names only $defs the registry can compile, each annotated with its method', () => {
    // The schema shipped in @agentclientprotocol/sdk, as the registry loaded it.
    const schema = testRegistry().documents.get(ACP_SCHEMA_ID)!.json as { $defs: Record<string, Record<string, unknown>> };
    for (const name of ACP_METHODS.methods()) {
      const entry = ACP_METHODS.get(name)!;
      for (const ref of [entry.request, entry.response, entry.notification]) {
        if (!ref) continue;
        expect(schema.$defs[ref.def]['x-method']).toBe(name);
        expect(testRegistry().def(ACP_SCHEMA_ID, ref.def).ok).toBe(true);
      }
    }
  });
});
