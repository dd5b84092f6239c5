import { describeWithCorpus, corpusJson, fullRegistry, readSharedJson, sharedPath } from '../support/shared.js';
import { expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { piRpcProtocol, PI_RPC_COMMAND_TYPES } from '../../src/protocols/pi-rpc/index.js';
import { PI_RPC_COMMAND_REF, PI_RPC_EVENT_REF, PI_RPC_RESPONSE_REF } from '../../src/protocols/pi-rpc/schema-refs.js';
import { Conversation } from '../protocols/pi-rpc/conversation.js';

interface Conformance {
  sdkVersion: string;
  commands: Array<Record<string, unknown>>;
  policyGatedCommands: string[];
  rawEvents: string[];
  extensionUiMethods: string[];
}

const conformance = corpusJson<Conformance>({ sdkVersion: '', commands: [], policyGatedCommands: [], rawEvents: [], extensionUiMethods: [] }, 'fixtures', 'pi-rpc', 'pi-daemon-v0.3.0', 'pi-rpc-conformance.json');
const commandTypes = corpusJson<{ commandTypes: string[] }>({ commandTypes: [] }, 'fixtures', 'pi-rpc', 'pi-daemon-v0.3.0', 'pi-rpc-command-types.json');

describeWithCorpus('pi-daemon v0.3.0 Pi RPC conformance fixtures', () => {
  it('lists the same 32 command types as the module', () => {
    expect(commandTypes.commandTypes).toEqual(PI_RPC_COMMAND_TYPES);
    expect(conformance.commands.map((c) => c.type)).toEqual(PI_RPC_COMMAND_TYPES);
  });

  it('judges every example command valid, each sniffed as Pi RPC and guessed as the client', () => {
    const channel = new Conversation(piRpcProtocol, fullRegistry(), 'line');
    for (const command of conformance.commands) {
      expect(piRpcProtocol.sniff(command), String(command.type)).toBeGreaterThan(0.5);
      expect(piRpcProtocol.guessSender(command)).toBe('client');
      expect(channel.client(command), String(command.type)).toEqual({ status: 'valid', schemaRef: PI_RPC_COMMAND_REF, findings: [] });
    }
    // They carry no ids; id-less responses in the same order answer them by type.
    for (const command of conformance.commands) {
      const response = { type: 'response', command: command.type, success: true };
      expect(channel.server(response), String(command.type)).toEqual({ status: 'valid', schemaRef: PI_RPC_RESPONSE_REF, findings: [] });
    }
    expect(channel.end()).toEqual([]);
  });

  it('judges the policy-gated commands as ordinary commands (policy is the daemon’s, not the wire’s)', () => {
    for (const type of conformance.policyGatedCommands) {
      expect(PI_RPC_COMMAND_TYPES).toContain(type);
    }
  });

  it('judges the raw events valid, sniffed as Pi RPC and guessed as the server', () => {
    const channel = new Conversation(piRpcProtocol, fullRegistry(), 'line');
    for (const type of conformance.rawEvents) {
      const event = type === 'entry_appended' ? { type, entry: { type: 'message', id: 'f73e22a6', parentId: null } } : { type };
      expect(piRpcProtocol.sniff(event), type).toBeGreaterThan(0.5);
      expect(piRpcProtocol.guessSender(event)).toBe('server');
      expect(channel.server(event), type).toEqual({ status: 'valid', schemaRef: PI_RPC_EVENT_REF, findings: [] });
    }
  });

  it('accepts an answer for each dialog method and flags one for each fire-and-forget method', () => {
    const channel = new Conversation(piRpcProtocol, fullRegistry(), 'line');
    const dialogs: Record<string, Record<string, unknown>> = {
      select: { value: 'alpha' },
      confirm: { confirmed: false },
      input: { value: 'typed' },
      editor: { cancelled: true },
    };
    for (const [index, method] of conformance.extensionUiMethods.entries()) {
      const id = `ui-${index}`;
      expect(channel.server({ type: 'extension_ui_request', id, method, title: method }).status).toBe('valid');
      const answer = dialogs[method] ?? { cancelled: true };
      const verdict = channel.client({ type: 'extension_ui_response', id, ...answer });
      expect(verdict.status, method).toBe('valid');
      expect(verdict.findings.map((f) => f.rule), method).toEqual(method in dialogs ? [] : ['extension-ui-not-dialog']);
    }
  });

  it('judges the pico stdio bridge exchange valid', () => {
    const channel = new Conversation(piRpcProtocol, fullRegistry(), 'line');
    const input = readFileSync(sharedPath('fixtures', 'pi-rpc', 'pi-daemon-v0.3.0', 'pico.input.jsonl'), 'utf8').split('\n').filter(Boolean);
    for (const line of input) expect(channel.line('client', line)).toMatchObject({ status: 'valid', findings: [] });
    const expected = readSharedJson('fixtures', 'pi-rpc', 'pi-daemon-v0.3.0', 'pico.expected.json');
    expect(channel.server(expected)).toMatchObject({ status: 'valid', findings: [] });
    expect(channel.end()).toEqual([]);
  });
});
