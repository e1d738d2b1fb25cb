import { defineConfig } from "@playwright/test";

// Browser tests drive Debian's Chromium (never a downloaded browser) against the dev server,
// which has the local mailbox at /dev/mail.
// E2E_PORT lets a second checkout run its own dev server beside this one.
const port = Number(process.env.E2E_PORT ?? 5173);

export default defineConfig({
  testDir: "test/e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  workers: 1,
  // One retry in CI: the sign-up journey has twice lost its "Email Verified" toast on a fresh
  // clone (never locally, never when run alone); a retried pass is still reported as flaky.
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://localhost:${port}`,
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
  webServer: {
    command: `npm run dev -- --port ${port}`,
    url: `http://localhost:${port}/api/viewer`,
    reuseExistingServer: !process.env.CI,
    timeout: 180_000,
    stdout: "ignore",
    stderr: "pipe",
  },
});
