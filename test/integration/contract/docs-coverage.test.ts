// docs/api-coverage.md has one row per client endpoint, naming the right method and test files that exist.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { clientMethods } from "../../helpers/endpoints.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

interface Row {
  endpoint: string;
  contract: string;
  methods: string;
  tests: string;
}

/** The rows of the Endpoints table: cells split on unescaped pipes. */
function rows(): Row[] {
  const text = readFileSync(`${ROOT}docs/api-coverage.md`, "utf8");
  return text
    .split("\n")
    .filter((line) => /^\| (GET|POST|PATCH|DELETE|PUT) \//.test(line))
    .map((line) => {
      const cells = line.split(" | ").map((c) => c.replace(/^\| |\|$/g, "").trim());
      return { endpoint: cells[0]!, contract: cells[1]!, methods: cells[2]!, tests: cells[4]! };
    });
}

describe("docs/api-coverage.md", () => {
  const table = rows();
  const client = clientMethods();

  it("has exactly one row per endpoint of the client, naming its method", () => {
    expect(table.map((r) => r.endpoint).sort()).toEqual([...client.keys()].sort());
    for (const row of table)
      expect(row.methods, row.endpoint).toContain(`\`${client.get(row.endpoint)}\``);
  });

  it("says for each row whether the contract or only the OpenAPI description shows it", () => {
    for (const row of table) expect(["spec", "OpenAPI"], row.endpoint).toContain(row.contract);
    expect(table.filter((r) => r.contract === "spec").length).toBeGreaterThan(15);
  });

  it("names only test files that exist", () => {
    for (const row of table) {
      const files = [...row.tests.matchAll(/`([\w/.-]+\.test\.ts)`/g)].map((m) => m[1]!);
      expect(files.length, row.endpoint).toBeGreaterThan(0);
      for (const file of files) {
        const path = file.startsWith("test/") ? file : `test/integration/${file}`;
        expect(existsSync(`${ROOT}${path}`), `${row.endpoint}: ${path}`).toBe(true);
      }
    }
  });
});
