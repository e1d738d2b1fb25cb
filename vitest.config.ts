import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { generateKeyPairSync } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { defineConfig } from "vitest/config";
import { unstable_readConfig } from "wrangler";
import {
  d1MigrationNames,
  memoisedRouteMatching,
  renderRoutesBuiltOnce,
  sqlAsText,
  staticIconsOnTheServer,
  serverStandIns,
} from "./vite.config.ts";

const TESTS = ["test/**/*.test.ts", "test/**/*.test.tsx", "sdk/typescript/test/**/*.test.ts"];
const NOT_TESTS = ["test/e2e/**"];
/** Test files that need a database no other file writes to. */
const OWN_DATABASE = [
  "test/catalogue/promotions.test.ts",
  "test/health/health.test.ts",
  "test/jobs/demo-seed.test.ts",
  "test/keys/stock-alerts.test.ts",
  "test/licences/licence-vectors.test.ts",
  "test/licences/shared-keys.test.ts",
  "test/orders/order-risk.test.ts",
  "test/orders/plan-names.test.ts",
  "test/orders/sales-figures.test.ts",
  "test/privacy/account-deletion.test.ts",
  "test/releases/release-uploads.test.ts",
  // The renewal cron reads every licence's expiry.
  "test/renewals/reminders.test.ts",
  // Its endpoints would receive every other file's events, sent over the network the file stands in for.
  "test/webhooks/webhooks.test.ts",
];

/**
 * Which files run, and how. `npm test` runs two sets one after the other. Most files share their
 * workerd and its database ("shared"): they make their own accounts, orders and keys under fresh
 * names, so they never see each other's, and the suite saves a start-up per file. The files that
 * need the whole database to themselves (empty figures, the demo seed, shop-wide settings, the
 * signing key's vectors) run each in a fresh one ("own-database"). Without TEST_FILES every file
 * gets its own, as when a developer runs a few of them by name.
 */
function testSet(set: string | undefined) {
  if (set === "shared") return { include: TESTS, exclude: [...NOT_TESTS, ...OWN_DATABASE], isolate: false };
  if (set === "own-database") return { include: OWN_DATABASE, exclude: NOT_TESTS };
  return { include: TESTS, exclude: NOT_TESTS };
}

/** A file of the project by its path from the root, as the asset layer would answer it. */
async function projectFile(request: Request): Promise<Response> {
  const root = path.resolve(".");
  const file = path.resolve(root, `.${decodeURIComponent(new URL(request.url).pathname)}`);
  if (!file.startsWith(`${root}${path.sep}`)) return new Response("Not found", { status: 404 });
  try {
    return new Response(await readFile(file));
  } catch {
    return new Response("Not found", { status: 404 });
  }
}

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  // Every setting from wrangler.toml, given again as a binding so that a developer's .dev.vars (a
  // shorter crypto quote, a mail key) cannot change what the tests see; the tests' own values follow.
  const settings = unstable_readConfig({ config: "./wrangler.toml" }).vars;
  return {
    plugins: [
      cloudflareTest(({ inject }) => ({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // The queues as wrangler.toml declares them, but handing each message to the consumer
          // at once instead of waiting up to a second for a batch to fill.
          queueConsumers: {
            "keyshop-jobs": { maxBatchSize: 10, maxBatchTimeout: 0, maxRetries: 5, deadLetterQueue: "keyshop-jobs-failed" },
            "keyshop-jobs-failed": { maxBatchSize: 10, maxBatchTimeout: 0, maxRetries: 5 },
          },
          // Empty databases for tests that run migrations step by step over old rows.
          d1Databases: ["MIGRATION_DB", "MIGRATION_DB_SHOP_OF_MANY"],
          // The asset layer, as the Worker reads static text from it (decision 119): the files
          // under the project, as the `?url` imports name them in tests.
          serviceBindings: { ASSETS: projectFile },
          bindings: {
            ...settings,
            TEST_MIGRATIONS: migrations,
            SHOPIFY_STUB_URL: inject("shopifyStubUrl"),
            CRYPTO_BTC_EXPLORER_URL: `${inject("esploraStubUrl")}/btc`,
            CRYPTO_LTC_EXPLORER_URL: `${inject("esploraStubUrl")}/ltc`,
            CRYPTO_RATE_URL: `${inject("esploraStubUrl")}/rates/{coin}-USD/spot`,
            // The shop's wallets in tests: the published BIP84 test wallets, as in local-secrets.example.
            CRYPTO_BTC_XPUB:
              "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs",
            CRYPTO_LTC_XPUB:
              "zpub6rPo5mF47z5coVm5rvWv7fv181awb7Vckn5Cf3xQXBVKu18kuBHDhNi1Jrb4br6vVD3ZbrnXemEsWJoR18mZwkUdzwD8TQnHDUCGxqZ6swA",
            SHOPIFY_WEBHOOK_SECRET: "test-webhook-secret",
            // Each check's place reaches the key's watch at once, so a test sees the count it made.
            LICENCE_WATCH_SEND_SECONDS: "0",
            SHOPIFY_STOREFRONT_TOKEN: "",
            MAIL_API_KEY: "",
            DISCORD_CLIENT_SECRET: "",
            // No bot token: the role sync talks to the simulated Discord, whose faults the tests provoke.
            DISCORD_BOT_TOKEN: "",
            TOTP_ENCRYPTION_KEY: "dGVzdC1vbmx5LXRvdHAtZW5jcnlwdGlvbi1rZXktMzI=",
            HEALTH_TOKEN: "test-health-token-0123456789abcdefghij",
            // A fresh licence signing key per run: tests read the public key from the API.
            LICENCE_SIGNING_KEY: generateKeyPairSync("ed25519").privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
          },
        },
      })),
      // The Worker writes the compiled stylesheet into every document, in tests as in production.
      tailwindcss(),
      reactRouter(),
      sqlAsText(),
      d1MigrationNames(),
      // Pages are drawn with the server's icons, as in production.
      staticIconsOnTheServer(),
      serverStandIns(),
      // Route matching remembered per path and the render's routes made once per build, as in production.
      memoisedRouteMatching(),
      renderRoutesBuiltOnce(),
    ],
    resolve: { tsconfigPaths: true },
    test: {
      setupFiles: ["./test/setup.ts"],
      css: { include: [/app\.css/, /first-screen\.css/] },
      globalSetup: ["./test/shopify-stub.ts", "./test/esplora-stub.ts"],
      // The first request in a file builds the routes it touches on demand; on a busy two-core
      // machine that alone can pass Vitest's 5 s default. A test that hangs still fails.
      testTimeout: 20_000,
      ...testSet(process.env.TEST_FILES),
    },
  };
});
