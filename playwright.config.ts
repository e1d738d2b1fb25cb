import { defineConfig } from "@playwright/test";

// Browser tests drive Debian's Chromium (never a downloaded browser) against the dev server and,
// for the production spec, against a fresh production build (see test/e2e/servers.ts).
import { DEV_PORT, PRODUCTION_PORT, PRODUCTION_URL } from "./test/e2e/servers";

export default defineConfig({
  testDir: "test/e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  workers: 1,
  // One retry in CI; a test that passes only on its retry is still reported as flaky.
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://localhost:${DEV_PORT}`,
    // Each run looks like its own client, so sign-in throttling from earlier runs never interferes.
    extraHTTPHeaders: { "CF-Connecting-IP": `e2e-${Date.now()}` },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
    trace: "off",
    screenshot: "only-on-failure",
  },
  webServer: [
    {
      command: `npm run dev -- --port ${DEV_PORT}`,
      url: `http://localhost:${DEV_PORT}/api/viewer`,
      reuseExistingServer: !process.env.CI,
      timeout: 180_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      // Built afresh, so the test never sees a stale build, unless the caller has just built it
      // (E2E_BUILT=1, as CI does after its own build step).
      command: `${process.env.E2E_BUILT === "1" ? "" : "npm run build && "}npm run preview -- --port ${PRODUCTION_PORT}`,
      url: `${PRODUCTION_URL}/api/viewer`,
      reuseExistingServer: !process.env.CI,
      timeout: 240_000,
      stdout: "ignore",
      stderr: "pipe",
    },
  ],
});
