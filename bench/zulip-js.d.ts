// zulip-js ships no types: what bench/zulip-js-echo.ts needs of its default export.
declare module "zulip-js" {
  /** Connects with `{ username, apiKey, realm }` and resolves to the resource tree. */
  export default function zulipInit(config: {
    username: string;
    apiKey: string;
    realm: string;
  }): Promise<unknown>;
}
