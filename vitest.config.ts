import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    // No persistent compile cache unless a test sets one (test/cache/): tests count and time compiles.
    env: { SMOOTH_CACHE: "off" },
  },
});
