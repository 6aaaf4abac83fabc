// What middleware leaves on `ctx.state` for handlers: an interface each bot fills in with its own keys.

/**
 * The shape of `ctx.state`, empty until a bot declares what its middleware sets there (declaration
 * merging); handlers then read it typed, and a misspelt key does not compile.
 *
 * @example
 * declare module "topicbot" {
 *   interface ContextState {
 *     account?: { id: number; admin: boolean };
 *   }
 * }
 * bot.use(async (ctx, next) => { ctx.state.account = await lookUp(ctx.sender.userId); await next(); });
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging
export interface ContextState {}
