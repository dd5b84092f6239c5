import { decode } from '@ag-ui/proto';

export const AGUI_PROTO_MEDIA_TYPE = 'application/vnd.ag-ui.event+proto';

/** Decodes one AG-UI protobuf event to the same JSON shape the SSE binding carries. */
export function decodeAguiProto(payload: Uint8Array): { value?: unknown; error?: string } {
  try {
    return { value: decode(payload) };
  } catch (error) {
    return { error: `the protobuf frame could not be decoded: ${(error as Error).message}` };
  }
}
