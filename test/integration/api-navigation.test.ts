// Contract: POST /navigation_views (navigationViews.add).
import { expect, it } from "vitest";
import {
  describeContract,
  eventsDuring,
  expectApiError,
  needSandbox,
  rawRequest,
} from "./contract/servers.js";
import { navigationViews } from "../../src/sandbox/routes/navigation.js";

describeContract("POST /navigation_views (navigationViews.add)", (server) => {
  const viewsOf = (handle: string) => {
    const sandbox = server().sandbox!;
    return navigationViews(sandbox.realm, sandbox.user(handle).userId);
  };

  it("adds a view with a name, and one without; the user gets an event", async (ctx) => {
    needSandbox(ctx, server());
    const client = server().client("member");
    const events = await eventsDuring(client, ["navigation_view"], async () => {
      await client.navigationViews.add({
        fragment: "narrow/channel/1-general",
        is_pinned: true,
        name: "General",
      });
      await client.navigationViews.add({ fragment: "inbox", is_pinned: false });
    });
    expect(viewsOf("mia")).toEqual([
      { fragment: "narrow/channel/1-general", is_pinned: true, name: "General" },
      { fragment: "inbox", is_pinned: false },
    ]);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ type: "navigation_view", op: "add" });
  });

  it("accepts a null name", async (ctx) => {
    needSandbox(ctx, server());
    await server()
      .client("member")
      .navigationViews.add({ fragment: "recent", is_pinned: true, name: null });
    expect(viewsOf("mia").at(-1)).toEqual({ fragment: "recent", is_pinned: true, name: null });
  });

  it("refuses a blank fragment", async (ctx) => {
    needSandbox(ctx, server());
    for (const fragment of ["", "   "]) {
      const error = await expectApiError(
        server().client("moderator").navigationViews.add({ fragment, is_pinned: true }),
        "BAD_REQUEST",
        400,
      );
      expect(error.msg).toMatch(/blank/);
    }
    expect(viewsOf("max")).toEqual([]);
  });

  it("refuses a fragment the user already has; another user may use it", async (ctx) => {
    needSandbox(ctx, server());
    await expectApiError(
      server().client("member").navigationViews.add({ fragment: "inbox", is_pinned: true }),
      "BAD_REQUEST",
    );
    await server().client("guest").navigationViews.add({ fragment: "inbox", is_pinned: true });
    expect(viewsOf("gus")).toHaveLength(1);
  });

  it("a missing is_pinned is REQUEST_VARIABLE_MISSING", async (ctx) => {
    needSandbox(ctx, server());
    const res = await rawRequest(server(), "member", "POST", "/navigation_views", {
      fragment: "starred",
    });
    expect(res.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: "is_pinned" });
  });
});
