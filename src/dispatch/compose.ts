// Koa-style middleware: each one gets the context and a `next` that runs the rest of the chain.

export type Next = () => Promise<void>;
export type Middleware<C> = (ctx: C, next: Next) => unknown;

const DONE: Promise<void> = Promise.resolve();

/**
 * What a middleware returned, as the promise `next()` hands up: the promise itself when it
 * returned one, the shared resolved promise otherwise. A synchronous middleware (a check that
 * calls `next()` or not) so costs no promise and no async frame of its own.
 */
function settled(result: unknown): Promise<void> {
  if (result instanceof Promise) return result as Promise<void>;
  if (typeof (result as PromiseLike<unknown> | undefined)?.then === "function")
    return Promise.resolve(result as PromiseLike<unknown>).then(() => undefined);
  return DONE;
}

/**
 * Composes middleware into one function. Calling `next()` twice in one middleware throws,
 * since it would run the rest of the chain twice. A middleware may be synchronous; the composed
 * function always returns a promise.
 *
 * @example
 * const run = compose<{ log: string[] }>([
 *   async (ctx, next) => { ctx.log.push("a"); await next(); ctx.log.push("c"); },
 *   (ctx) => { ctx.log.push("b"); },
 * ]);
 * await run({ log: [] }); // a, b, c
 */
export function compose<C>(
  middleware: readonly Middleware<C>[],
): (ctx: C, next?: Next) => Promise<void> {
  return (ctx, last) => {
    let called = -1;
    const dispatch = (i: number): Promise<void> => {
      if (i <= called)
        return Promise.reject(new Error("next() called more than once in one middleware"));
      called = i;
      const fn = i === middleware.length ? last : middleware[i];
      if (!fn) return DONE;
      try {
        return settled(fn(ctx, () => dispatch(i + 1)));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0);
  };
}
