import { describe, expect, it } from "vitest";
import { compileTemplate, renderTemplate, TemplateError } from "../../src/webhooks/template.js";

const payload = {
  repository: { full_name: "octo/widgets" },
  commits: [{ id: "abc", author: { name: "Ada" } }],
  count: 3,
  ok: false,
  nothing: null,
  labels: ["bug", "ui"],
};

describe("templates", () => {
  it("fills dotted paths, list indexes and scalars", () => {
    const t = compileTemplate(
      "{{ payload.repository.full_name }}: {{payload.commits.0.author.name}} pushed {{ payload.count }} ({{ payload.ok }})",
    );
    expect(t.render({ payload })).toBe("octo/widgets: Ada pushed 3 (false)");
    expect(t.fields).toEqual([
      "payload.repository.full_name",
      "payload.commits.0.author.name",
      "payload.count",
      "payload.ok",
    ]);
  });

  it("prints null as empty, structures as JSON, and {{{{ as a literal", () => {
    expect(
      renderTemplate("[{{ payload.nothing }}] {{ payload.labels }} {{{{x}}", { payload }),
    ).toBe('[] ["bug","ui"] {{x}}');
  });

  it("names the place and the field when a key is missing", () => {
    const t = compileTemplate("{{ payload.repository.name }}", "webhook route /hooks/gh");
    expect(() => t.render({ payload })).toThrow(TemplateError);
    expect(() => t.render({ payload })).toThrow(
      'webhook route /hooks/gh: template field "payload.repository.name" is missing (payload.repository has no key "name")',
    );
    try {
      t.render({ payload });
    } catch (error) {
      expect((error as TemplateError).field).toBe("payload.repository.name");
      expect((error as TemplateError).where).toBe("webhook route /hooks/gh");
    }
  });

  it("explains a missing list item, a step through a scalar, and an unknown root", () => {
    expect(() => renderTemplate("{{ payload.commits.4.id }}", { payload }, "r")).toThrow(
      /"payload.commits.4.id" is missing \(payload.commits has 1 item\)/,
    );
    expect(() => renderTemplate("{{ payload.count.value }}", { payload }, "r")).toThrow(
      /payload.count is number, not an object or list/,
    );
    expect(() => renderTemplate("{{ body.x }}", { payload }, "r")).toThrow(
      /"body.x" is missing \(known names: payload\)/,
    );
  });

  it("does not read inherited properties", () => {
    expect(() => renderTemplate("{{ payload.constructor }}", { payload: {} }, "r")).toThrow(
      /has no key "constructor"/,
    );
  });

  it("rejects unclosed and malformed placeholders when parsed", () => {
    expect(() => compileTemplate("Hello {{ payload.name", "schedule standup")).toThrow(
      /schedule standup: template has an unclosed "\{\{" at character 7/,
    );
    expect(() => compileTemplate("{{ payload.a b }}", "r")).toThrow(/malformed placeholder/);
    expect(() => compileTemplate("{{ }}", "r")).toThrow(/malformed placeholder/);
  });
});

describe("Markdown templates: a value cannot write lines of the template's own", () => {
  const markdown = { markdown: true };
  const forged = "v2.1\nApproved by: **Olivia Owner**\r\nAnd\u2028more";

  it("writes a plain value on one line", () => {
    const out = renderTemplate(
      "Deploy {{ payload.version }} requested\nApproved by: **{{ payload.approver }}**",
      { payload: { version: forged, approver: "Gus" } },
      "r",
      markdown,
    );
    expect(out.split("\n").filter((line) => line.startsWith("Approved by"))).toEqual([
      "Approved by: **Gus**",
    ]);
    expect(out).toBe(
      "Deploy v2.1 Approved by: **Olivia Owner** And more requested\nApproved by: **Gus**",
    );
  });

  it("keeps a multi-line value's lines inside a fenced quote or code block with `| quote`, `| block`", () => {
    const payload = { msg: "fix\n````\nApproved by: **Olivia**", who: "Gus" };
    expect(
      renderTemplate(
        "Commit by {{ payload.who }}:{{ payload.msg | quote }}\nAuthor: {{ payload.who }}",
        { payload },
        "r",
        markdown,
      ),
    ).toBe("Commit by Gus:\n`````quote\nfix\n````\nApproved by: **Olivia**\n`````\nAuthor: Gus");
    expect(renderTemplate("Log:\n{{ payload.msg | block }}", { payload }, "r", markdown)).toBe(
      "Log:\n`````\nfix\n````\nApproved by: **Olivia**\n`````",
    );
  });

  it("leaves plain-text templates (topics) to the route, which mends them", () => {
    expect(renderTemplate("{{ payload.t }}", { payload: { t: "a\nb" } }, "r")).toBe("a\nb");
  });
});

describe("a payload nested too deeply to print", () => {
  it("is a TemplateError naming the field (the receiver answers 422), not a stack overflow", () => {
    const deep = JSON.parse(`${"[".repeat(200_000)}${"]".repeat(200_000)}`) as unknown;
    expect(() =>
      renderTemplate(
        "v{{ payload.version }}",
        { payload: { version: deep } },
        "webhook route /hooks/ci",
        {
          markdown: true,
        },
      ),
    ).toThrow(
      new TemplateError(
        "webhook route /hooks/ci",
        "payload.version",
        "is nested too deeply to print",
      ),
    );
  });
});
