// ESLint: typescript-eslint's type-checked recommended rules over the sources, tests and benchmarks' TypeScript.
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "coverage/**",
      "site/**",
      "src/generated/**",
      ".on-demand/**",
      "docs/.vitepress/**",
      "**/*.mjs",
      "**/*.js",
      "**/*.cjs",
      // Written by `smooth types` (the type test checks it is what the command writes).
      "test/ts-types/*.smooth.d.ts",
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ["./tsconfig.test.json", "./playground/tsconfig.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Prettier wraps code at 120 columns but not comments: this keeps them within it too. A string or template
      // literal (a test name, a message, a one-line program) may run over: splitting it would change what it says.
      "max-len": [
        "error",
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
    },
  },
  {
    // Tests read JSON results (typed `any` by JSON.parse) and build messages from arrays.
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/restrict-template-expressions": "off",
    },
  },
);
