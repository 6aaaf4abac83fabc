// topicbot/client: the typed REST client and its errors.
export { createClient } from "./client.js";
export { loginWithPassword } from "./login.js";
export { downloadUpload } from "./download.js";
export type { DownloadedFile } from "./download.js";
export type { PasswordLoginOptions } from "./login.js";
export type { ApiClient, CallEvent, CallOptions, ClientOptions, RateLimitState } from "./client.js";
export {
  ApiError,
  NetworkError,
  CertificateError,
  InvalidArgumentError,
  ResponseShapeError,
  MessageEditWindowError,
  MessageMoveWindowError,
  WidgetEditError,
  isFatal,
  FATAL_CODES,
} from "./errors.js";
export type { TlsSettings } from "./connection.js";
export { backoffDelay, sleep } from "./backoff.js";
export type { BackoffOptions } from "./backoff.js";
export { endpoints } from "../api/index.js";
export * from "../api/index.js";
