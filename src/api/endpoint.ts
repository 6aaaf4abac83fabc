// What an endpoint is: method, path, parameter schema and response schema, read by client and sandbox alike.
// The schemas may be declared as functions: they are then built on first use, not when the module loads
// (the wire table has some 70 of them; `bot start` uses a handful).
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

/** What `endpoint()` takes: an endpoint whose schemas are given as they are or as functions that build them. */
export type EndpointDeclaration<P extends z.ZodObject, R extends z.ZodType> = Omit<
  EndpointSpec<P, R>,
  "params" | "response"
> & {
  params: P | (() => P);
  response: R | (() => R);
};

/** Endpoints declared with schema functions that have not been read yet. */
const unbuilt = new WeakSet<object>();

/**
 * A property whose value is `value`, or, when `value` is a function, what it returns, built on first
 * read (which also takes `ep` off the unbuilt list).
 */
function schemaProperty<T extends object>(ep: object, value: T | (() => T)): PropertyDescriptor {
  if (typeof value !== "function") return { value, enumerable: true };
  let built: T | undefined;
  unbuilt.add(ep);
  return {
    get: () => {
      if (built === undefined) {
        built = (value as () => T)();
        unbuilt.delete(ep);
      }
      return built;
    },
    enumerable: true,
  };
}

/** Whether any schema of `ep` has been built (diagnostics: what start-up built, see cli-start-lazy). */
export function schemasBuilt(ep: Endpoint): boolean {
  return !unbuilt.has(ep);
}

/**
 * Declares an endpoint; keeps the schema types. Schemas given as functions are built on first read
 * of `params` / `response` (once), so importing the wire table builds none of them.
 */
export function endpoint<P extends z.ZodObject, R extends z.ZodType>(
  spec: EndpointDeclaration<P, R>,
): Endpoint<P, R> {
  const { params, response, ...rest } = spec;
  const ep = { auth: "required", idempotent: spec.method === "GET", ...rest };
  Object.defineProperty(ep, "params", schemaProperty(ep, params));
  Object.defineProperty(ep, "response", schemaProperty(ep, response));
  return Object.freeze(ep) as Endpoint<P, R>;
}

/** Names of the `{placeholders}` in an endpoint path, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

export type ParamsOf<E> = E extends Endpoint<infer P, z.ZodType> ? z.input<P> : never;
export type ResponseOf<E> = E extends Endpoint<z.ZodObject, infer R> ? z.output<R> : never;
