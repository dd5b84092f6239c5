import type { WireBinding } from '../protocol.js';
import { AGUI_PROTO_MEDIA_TYPE } from './media-type.js';

type Decode = (payload: Uint8Array) => unknown;
type Encode = (event: never) => Uint8Array;
let decode: Decode | undefined;
let encode: Encode | undefined;
let loadFailure: string | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads `@ag-ui/proto` on first need. It brings protobuf and zod with it, tens of milliseconds that
 * would otherwise be spent at every start-up, while the first traffic flows, for a binding most
 * recordings never see.
 */
export function loadAguiProtoDecoder(): Promise<void> {
  loading ??= import('@ag-ui/proto').then(
    (module) => {
      decode = module.decode;
      encode = module.encode as Encode;
    },
    (error: Error) => {
      loadFailure = `the AG-UI protobuf decoder could not be loaded: ${error.message}`;
    },
  );
  return loading;
}

/** True once loadAguiProtoDecoder() has settled, whether or not it succeeded. */
export function aguiProtoDecoderSettled(): boolean {
  return decode !== undefined || loadFailure !== undefined;
}

/** Decodes one AG-UI protobuf event to the same JSON shape the SSE binding carries. */
export function decodeAguiProto(payload: Uint8Array): { value?: unknown; error?: string } {
  if (!decode) return { error: loadFailure ?? 'the AG-UI protobuf decoder is not loaded yet' };
  try {
    return { value: decode(payload) };
  } catch (error) {
    return { error: `the protobuf frame could not be decoded: ${(error as Error).message}` };
  }
}

/**
 * A whole frame (4-byte length prefix and payload) for a decoded event, e.g. one whose secret fields
 * were redacted; undefined when the encoder is not loaded or refuses the value.
 */
export function encodeAguiProtoFrame(value: unknown): Buffer | undefined {
  if (!encode) return undefined;
  try {
    const payload = encode(value as never);
    const frame = Buffer.alloc(4 + payload.length);
    frame.writeUInt32BE(payload.length, 0);
    frame.set(payload, 4);
    return frame;
  } catch {
    return undefined;
  }
}

/** AG-UI's protobuf binding (`@ag-ui/proto`), as the tools use it through the catalog. */
export const aguiProtoBinding: WireBinding = {
  channel: 'proto',
  mediaType: AGUI_PROTO_MEDIA_TYPE,
  encoding: 'protobuf',
  client: 'AG-UI',
  load: loadAguiProtoDecoder,
  settled: aguiProtoDecoderSettled,
  decode: decodeAguiProto,
  encodeFrame: encodeAguiProtoFrame,
};
