// What an endpoint is: method, path, parameter schema and response schema, read by client and sandbox alike.
import type { z } from "zod";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface EndpointSpec<
  P extends z.ZodObject = z.ZodObject,
  R extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** Path under `/api/v1`, with `{name}` placeholders filled from `params`. */
  path: string;
  /** Every parameter, path ones included. The client validates against it before sending. */
  params: P;
  /** The success body beyond the envelope. Loose objects: unknown fields pass through. */
  response: R;
  /** `none`: no credentials sent (server settings, fetch_api_key). */
  auth?: "required" | "none" | "optional";
  /** The body is multipart/form-data carrying one file. */
  multipart?: boolean;
  /** A long-poll: the request timeout comes from the registration response. */
  longPoll?: boolean;
  /** Safe to send again after a 5xx or a dropped connection. Defaults to true for GET. */
  idempotent?: boolean;
}

export type Endpoint<
  P extends z.ZodObject = z.ZodObject,
  R extends z.ZodType = z.ZodType,
> = Readonly<EndpointSpec<P, R>>;

/** Declares an endpoint; an identity helper that keeps the schema types. */
export function endpoint<P extends z.ZodObject, R extends z.ZodType>(
  spec: EndpointSpec<P, R>,
): Endpoint<P, R> {
  return Object.freeze({ auth: "required", idempotent: spec.method === "GET", ...spec });
}

/** Names of the `{placeholders}` in an endpoint path, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

export type ParamsOf<E> = E extends Endpoint<infer P, z.ZodType> ? z.input<P> : never;
export type ResponseOf<E> = E extends Endpoint<z.ZodObject, infer R> ? z.output<R> : never;
