// Lint configuration: typescript-eslint's recommended rules over the whole tree.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", "**/node_modules/", ".docs-code/"] },
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": "error",
      // A dependency's files are its internals (issue 35): its public entry only.
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["undici/*", "pino/*", "zod/v4/core/*"],
              message: "import the package's public entry",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["bin/**/*.js", "test/fixtures/**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
  {
    // pm2's ecosystem file of deploy/: CommonJS, read by pm2.
    files: ["deploy/**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { module: "writable", __dirname: "readonly" },
    },
  },
);
