/** The protobuf binding's media type; the client compares the response Content-Type with `===` (notes §1.3). */
export const AGUI_PROTO_MEDIA_TYPE = 'application/vnd.ag-ui.event+proto';
