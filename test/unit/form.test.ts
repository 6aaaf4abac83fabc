import { describe, expect, it } from "vitest";
import { fieldsOf, formFields } from "../../src/api/form.js";
import { formEncode } from "../../src/client/encode.js";

describe("formFields and fieldsOf", () => {
  it("decodes what the client encodes as URLSearchParams does", () => {
    const values = [
      "",
      "plain",
      "echo 1!",
      "a+b=c&d",
      "100% ünïcödé 🎉",
      'quote " back \\ newline \n tab \t',
      '[{"operator":"channel","operand":"general"}]',
      "=&=",
    ];
    for (const a of values)
      for (const b of values) {
        const form = `k=${formEncode(a)}&${formEncode(b)}=${formEncode(a + b)}&x=${formEncode(b)}`;
        const expected = Object.fromEntries(new URLSearchParams(form));
        expect(fieldsOf(form), form).toEqual(expected);
        expect(formFields(form), form).toEqual(expected);
      }
  });

  it("reads what the fast path does not take as URLSearchParams does", () => {
    for (const form of [
      "a",
      "a=1&",
      "a=1&&b=2",
      "a=%ZZ",
      "a=%E2%82",
      "__proto__=1",
      "a=%",
      "?a=1",
    ]) {
      const expected = Object.fromEntries(new URLSearchParams(form));
      expect(Object.entries(formFields(form)), form).toEqual(Object.entries(expected));
      expect(Object.entries(fieldsOf(form)), form).toEqual(Object.entries(expected));
    }
    expect(fieldsOf(new URLSearchParams({ a: "1 2" }))).toEqual({ a: "1 2" });
    expect(fieldsOf(undefined)).toEqual({});
  });
});
