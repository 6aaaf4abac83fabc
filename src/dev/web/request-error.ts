// An error a console request caused: answered with its HTTP status and message.

/** Thrown by a console action; the server answers with `status` and `{ error: message }`. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
