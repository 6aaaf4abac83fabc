// Koa-style middleware: each one gets the context and a `next` that runs the rest of the chain.

export type Next = () => Promise<void>;
export type Middleware<C> = (ctx: C, next: Next) => unknown;

/**
 * Composes middleware into one function. Calling `next()` twice in one middleware throws,
 * since it would run the rest of the chain twice.
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
    const dispatch = async (i: number): Promise<void> => {
      if (i <= called) throw new Error("next() called more than once in one middleware");
      called = i;
      const fn = i === middleware.length ? last : middleware[i];
      if (!fn) return;
      await fn(ctx, () => dispatch(i + 1));
    };
    return dispatch(0);
  };
}
