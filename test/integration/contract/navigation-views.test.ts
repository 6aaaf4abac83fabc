// Behaviours of POST /navigation_views ported from the server's zerver/tests/test_navigation_views.py (views/navigation_views.py).
import { expect, it } from "vitest";
import { describeContract, eventsDuring, needSandbox, rawRequest } from "./servers.js";

describeContract("POST /navigation_views (upstream test_navigation_views.py)", (server) => {
  const add = (fields: Record<string, string>, role: "member" | "admin" = "member") =>
    rawRequest(server(), role, "POST", "/navigation_views", { is_pinned: "true", ...fields });

  // upstream: test_navigation_views.py NavigationViewTests.test_add_navigation_view (a built-in view without name)
  it("adds a built-in view without a name", async () => {
    expect((await add({ fragment: "inbox" })).status).toBe(200);
  });

  // upstream: test_navigation_views.py NavigationViewTests.test_add_navigation_view ("Built-in views cannot have a custom name.")
  it("refuses a name for a built-in view", async () => {
    const res = await add({ fragment: "recent", name: "My recent" });
    expect(res.body).toMatchObject({
      code: "BAD_REQUEST",
      msg: "Built-in views cannot have a custom name.",
    });
  });

  // upstream: test_navigation_views.py NavigationViewTests.test_add_navigation_view ("Custom views must have a valid name.")
  it("refuses a custom view without a name", async () => {
    const res = await add({ fragment: "narrow/channel/1-general" });
    expect(res.body).toMatchObject({ msg: "Custom views must have a valid name." });
  });

  // upstream: test_navigation_views.py NavigationViewTests.test_add_navigation_view (a custom view with a name, and its event)
  it("adds a custom view with a name and announces it", async (ctx) => {
    needSandbox(ctx, server());
    const events = await eventsDuring(server().client("member"), ["navigation_view"], () =>
      add({ fragment: "narrow/is/alerted", name: "Alert words" }),
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: "navigation_view",
        op: "add",
        navigation_view: { fragment: "narrow/is/alerted", is_pinned: true, name: "Alert words" },
      }),
    ]);
  });

  // upstream: test_navigation_views.py NavigationViewTests.test_add_navigation_view ("Navigation view already exists.": the fragment)
  it("refuses a fragment used twice", async () => {
    await add({ fragment: "feed" });
    const res = await add({ fragment: "feed" });
    expect(res.body).toMatchObject({ msg: "Navigation view already exists." });
  });

  // upstream: test_navigation_views.py NavigationViewTests.test_add_navigation_view ("Navigation view already exists.": the name)
  it("refuses a name used twice", async () => {
    await add({ fragment: "narrow/channel/2-a", name: "Same name" });
    const res = await add({ fragment: "narrow/channel/3-b", name: "Same name" });
    expect(res.body).toMatchObject({ msg: "Navigation view already exists." });
  });

  // upstream: test_navigation_views.py NavigationViewTests.test_add_navigation_view (fragment stripped, not blank)
  it("refuses a blank fragment", async () => {
    const res = await add({ fragment: "  " });
    expect(res.status).toBe(400);
    expect(String(res.body.msg)).toMatch(/blank/);
  });

  // upstream: test_navigation_views.py (is_pinned is required)
  it("refuses a view without is_pinned", async () => {
    const res = await rawRequest(server(), "member", "POST", "/navigation_views", {
      fragment: "drafts",
    });
    expect(res.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: "is_pinned" });
  });
});
