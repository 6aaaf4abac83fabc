import { createHook } from "node:async_hooks";
import { describe, expect, it, vi } from "vitest";
import type { Dispatcher } from "undici";
import type { SendParams } from "../../src/api/messages.js";
import { createClient } from "../../src/client/client.js";
import { Transport } from "../../src/client/transport.js";
import { postTo } from "../../src/runtime/context/actions.js";

// Work a reply does on its way out that it need not: promises (each an allocation and a turn of
// the microtask queue) in the transport's reading of a form POST's answer and in `postTo` for
// content of one message, and the client's lookup of what it knows of the endpoint.

/** The promises created while `run`'s promise settles (async_hooks sees every one). */
async function promisesOf(run: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === "PROMISE") count++;
    },
  });
  hook.enable();
  try {
    await run();
  } finally {
    hook.disable();
  }
  return count;
}

/** A dispatcher answering every request at once with `body` (by default `{"result":"success","id":1}`). */
const answeringWith = (status: number, body: string) =>
  ({
    dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      const controller = {
        abort: () => undefined,
        pause: () => undefined,
        resume: () => undefined,
      } as unknown as Dispatcher.DispatchController;
      handler.onRequestStart?.(controller, {});
      handler.onResponseStart?.(controller, status, {}, "");
      handler.onResponseData?.(controller, Buffer.from(body));
      handler.onResponseEnd?.(controller, {});
      return true;
    },
    close: async () => undefined,
  }) as unknown as Dispatcher;
const answering = answeringWith(200, '{"result":"success","id":1}');

describe("promises per reply", () => {
  it("the transport reads a form POST's JSON answer without an async step of its own", async () => {
    const transport = new Transport({
      site: "http://chat.test",
      email: "bot@chat.test",
      apiKey: "KEY",
      dispatcher: answering,
    });
    const send = () =>
      transport.send({
        method: "POST",
        path: "/messages",
        fields: new URLSearchParams({ type: "channel", to: "1", topic: "t", content: "hi" }),
        authenticate: true,
        timeoutMs: 30_000,
        endpoint: "POST /messages",
      });
    expect((await send()).body).toEqual({ result: "success", id: 1 });
    // Reading the text first (`requestText`, async) and parsing it after made 7 (this counts the
    // test's own await too).
    expect(Math.min(await promisesOf(send), await promisesOf(send))).toBeLessThanOrEqual(5);
    // An answer that is not JSON is still told apart, with its status.
    const html = new Transport({
      site: "http://chat.test",
      dispatcher: answeringWith(502, "<html>"),
    });
    await expect(
      html.send({
        method: "POST",
        path: "/messages",
        fields: new URLSearchParams({ content: "hi" }),
        authenticate: false,
        timeoutMs: 30_000,
        endpoint: "POST /messages",
      }),
    ).rejects.toThrow("HTTP 502 with a body that is not JSON");
  });

  it("postTo sends content of one message without the loop over parts", async () => {
    const sent: SendParams[] = [];
    const env = {
      api: undefined as never,
      me: undefined as never,
      server: () => ({ featureLevel: 400, maxMessageLength: 100 }),
      sendMessage: (p: SendParams) => {
        sent.push(p);
        return Promise.resolve({ id: 5 });
      },
    };
    const params = { type: "channel", to: 1, topic: "t" } as const;
    const post = () => postTo(env, params, "hello");
    expect(await post()).toEqual({ id: 5, ids: [5] });
    expect(sent).toEqual([{ ...params, content: "hello" }]);
    // The async loop over the parts made 5 (this counts the send's own and the test's await).
    expect(Math.min(await promisesOf(post), await promisesOf(post))).toBeLessThanOrEqual(4);
  });

  it("the client's endpoint methods look their endpoint's facts up once, not per call", async () => {
    const client = createClient({
      site: "http://chat.test",
      email: "bot@chat.test",
      apiKey: "KEY",
      dispatcher: answeringWith(200, '{"result":"success","msg":"","id":1}'),
    });
    const params = { type: "channel", to: 1, topic: "t", content: "hi" } as const;
    await client.messages.send(params);
    const get = vi.spyOn(WeakMap.prototype, "get");
    const ids: number[] = [];
    let lookups: number;
    try {
      for (let i = 0; i < 10; i++) ids.push((await client.messages.send(params)).id);
      lookups = get.mock.calls.length;
    } finally {
      get.mockRestore();
    }
    expect(ids).toEqual(Array(10).fill(1));
    // Each call looked the facts up in a WeakMap: 10.
    expect(lookups).toBe(0);
  });
});
