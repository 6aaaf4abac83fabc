// Test runner configuration: every *.test.ts under test/, plugins/ and examples/.
import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

const src = (p: string) => fileURLToPath(new URL(`./src/${p}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^topicbot$/, replacement: src("index.ts") },
      { find: /^topicbot\/client$/, replacement: src("client/index.ts") },
      { find: /^topicbot\/sandbox$/, replacement: src("sandbox/index.ts") },
      { find: /^topicbot\/testing$/, replacement: src("testing/index.ts") },
      { find: /^topicbot\/webhooks$/, replacement: src("webhooks/index.ts") },
      { find: /^topicbot\/ai$/, replacement: src("ai/index.ts") },
      { find: /^topicbot\/chat-sdk$/, replacement: src("chat-sdk/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts", "plugins/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    typecheck: { enabled: false },
  },
});
