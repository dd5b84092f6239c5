/** An API failure with the HTTP status it is answered with; its message is the JSON `error`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
