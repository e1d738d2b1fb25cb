// The setup script against a stand-in for Cloudflare's API (see cloudflare-stand-in.ts), twice: the
// first run makes the database, bucket, queues and secrets, applies the migrations and deploys as a
// dry run; the second changes nothing. The deploy is a dry run of a small Worker with the shop's
// bindings, as the real build needs the whole app: what is under test is the script's steps.
// Run with `npm run test:operations`.
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type StandIn, startCloudflareStandIn } from "./cloudflare-stand-in.ts";
import { runScript, scratchCheckout } from "./scratch-checkout.ts";

// A wallet made for this test (the shop refuses the public demo wallets): BIP84's account key of a fixed seed.
const BTC_WALLET = "xpub6DHu7uEnWUHhmta3J2u9aedJEJSVNNtEHDFLVV5Qvjfy7siAQpdEoD8khRX76bLMjfoBFXw2dVSgHkyHHosRLgyJPnrfUMA4PS5UoaKR6vz";

let standIn: StandIn;
let folder: string;

function setup(args: string[], env: Record<string, string> = {}) {
  return runScript(standIn, folder, "setup-production.ts", ["--dry-run", "--skip-build", ...args], env);
}

const answers = {
  SHOP_DOMAIN: "shop.example.org",
  SHOPIFY_WEBHOOK_SECRET: "whsec-0123456789abcdef",
  CRYPTO_BTC_XPUB: BTC_WALLET,
};

describe("npm run setup:production", () => {
  before(async () => {
    standIn = await startCloudflareStandIn();
    folder = scratchCheckout("setup-production");
  });
  after(async () => {
    await standIn.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("refuses a bad value with the shop's own message, before changing the configuration", async () => {
    const config = readFileSync(join(folder, "wrangler.toml"), "utf8");
    const refused = await setup([], { ...answers, SHOPIFY_WEBHOOK_SECRET: "short" });
    assert.equal(refused.status, 1);
    assert.deepEqual(standIn.changes, [], "nothing was made in the account");
    assert.equal(readFileSync(join(folder, "wrangler.toml"), "utf8"), config);
    assert.match(refused.out, /SHOPIFY_WEBHOOK_SECRET is too short: copy the whole signing secret/);
  });

  it("makes everything on the first run, and changes nothing on the second", async () => {
    const before = standIn.changes.length;
    const first = await setup([], answers);
    assert.equal(first.status, 0, first.out);
    const made = standIn.changes.slice(before);
    assert.ok(
      made.some((change) => change.endsWith("/d1/database")),
      made.join("\n"),
    );
    assert.ok(made.some((change) => change.endsWith("/r2/buckets")));
    assert.equal(made.filter((change) => change.endsWith("/queues")).length, 2);
    const [database] = [...standIn.databases.values()];
    assert.equal(database!.name, "keyshop");
    const config = readFileSync(join(folder, "wrangler.toml"), "utf8");
    assert.match(config, new RegExp(`database_id = "${database!.uuid}"`));
    assert.match(config, /WEBAUTHN_ORIGIN = "https:\/\/shop\.example\.org"/);
    const secrets = standIn.scripts.get("keyshop")!.secrets;
    for (const name of ["LICENCE_SIGNING_KEY", "TOTP_ENCRYPTION_KEY", "HEALTH_TOKEN", "SHOPIFY_WEBHOOK_SECRET", "CRYPTO_BTC_XPUB"])
      assert.ok(secrets.has(name), name);
    assert.equal(secrets.get("CRYPTO_BTC_XPUB"), BTC_WALLET);
    const tables = database!.sql.prepare("select name from d1_migrations").all() as { name: string }[];
    assert.ok(tables.length > 20);
    assert.match(first.out, /https:\/\/shop\.example\.org\/webhooks\/shopify/);
    assert.deepEqual(standIn.unknown, []);

    const signingKey = secrets.get("LICENCE_SIGNING_KEY");
    const second = await setup([], answers);
    assert.equal(second.status, 0, second.out);
    assert.deepEqual(standIn.changes.slice(before + made.length), [], "the second run changed nothing");
    assert.equal(readFileSync(join(folder, "wrangler.toml"), "utf8"), config);
    assert.equal(standIn.scripts.get("keyshop")!.secrets.get("LICENCE_SIGNING_KEY"), signingKey);
  });

  it("sets up staging apart, under its own names", async () => {
    const staged = await setup(["--env", "staging"], { ...answers, SHOP_DOMAIN: "staging.shop.example.org" });
    assert.equal(staged.status, 0, staged.out);
    assert.ok([...standIn.databases.values()].some((db) => db.name === "keyshop-staging"));
    assert.ok(standIn.buckets.has("downloads-staging"));
    assert.ok(standIn.queues.has("keyshop-staging-jobs-failed"));
    assert.ok(standIn.scripts.get("keyshop-staging")!.secrets.has("HEALTH_TOKEN"));
  });
});
