import { bindingOfChannel } from '../../protocols/catalog.js';
import type { WireBinding } from '../../protocols/protocol.js';
import type { Substitution } from '../../match/correlation.js';
import type { ReplayScript, ScriptMessage } from '../replay-script.js';

/** The binary wire bindings (AG-UI's protobuf) whose frames `script` holds: their codecs, often large, load only for these. */
function bindingsOf(script: ReplayScript): Set<WireBinding> {
  const bindings = new Set<WireBinding>();
  for (const exchange of script.exchanges) {
    for (const message of exchange.messages) {
      const binding = bindingOfChannel(message.channel);
      if (binding) bindings.add(binding);
    }
  }
  return bindings;
}

/** Loads the codecs substituteMessage() needs to re-encode the binary frames `script` holds. */
export async function loadFrameCodecs(script: ReplayScript): Promise<void> {
  await Promise.all([...bindingsOf(script)].map((binding) => binding.load()));
}

/**
 * A recorded stream message with the live ids in place. Text (JSON bodies, SSE frames) is rewritten
 * token by token; a binary frame (a protocol's wire binding) has no JSON tokens, so it is re-encoded
 * from its recorded value when, and only when, that value contains an echoed id.
 */
export function substituteMessage(message: ScriptMessage, substitution: Substitution): Buffer {
  if (substitution.size === 0) return message.raw;
  const binding = bindingOfChannel(message.channel);
  if (!binding) return substitution.apply(message.raw);
  if (message.json === undefined) return message.raw;
  const replaced = substitution.applyValue(message.json);
  if (JSON.stringify(replaced) === JSON.stringify(message.json)) return message.raw;
  if (!binding.settled()) throw new Error(`a ${binding.encoding} frame is to be re-encoded before loadFrameCodecs() was awaited`);
  // A codec that could not load, or refuses the value, leaves the frame as recorded: the client gets
  // the recorded ids rather than a broken stream.
  return binding.encodeFrame(replaced) ?? message.raw;
}
