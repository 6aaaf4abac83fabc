import { describe, expect, it } from "vitest";
import { HOLD_YOUNG_GENERATION_FLAG, youngGenerationFlag } from "../../src/cli/memory-policy.js";

describe("memory.youngGeneration", () => {
  it("hold sets the growth flag; grow, or a young-generation flag given to Node, sets nothing", () => {
    expect(youngGenerationFlag({ youngGeneration: "hold" }, [])).toBe(HOLD_YOUNG_GENERATION_FLAG);
    expect(youngGenerationFlag({ youngGeneration: "hold" }, ["--import", "tsx"])).toBe(
      HOLD_YOUNG_GENERATION_FLAG,
    );
    expect(youngGenerationFlag({ youngGeneration: "grow" }, [])).toBeUndefined();
    expect(
      youngGenerationFlag({ youngGeneration: "hold" }, ["--max-semi-space-size=64"]),
    ).toBeUndefined();
    expect(
      youngGenerationFlag({ youngGeneration: "hold" }, ["--semi_space_growth_factor=4"]),
    ).toBeUndefined();
  });
});
