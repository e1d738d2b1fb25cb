// The setup script against a stand-in for Cloudflare's API (see cloudflare-stand-in.ts), twice: the
// first run makes the database, bucket, queues and secrets, applies the migrations and deploys as a
// dry run; the second changes nothing. The deploy is a dry run of a small Worker with the shop's
// bindings, as the real build needs the whole app: what is under test is the script's steps.
// Run with `npm run test:operations`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { STAND_IN_ACCOUNT, type StandIn, startCloudflareStandIn } from "./cloudflare-stand-in.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const BTC_WALLET = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";

let standIn: StandIn;
let folder: string;

/** A copy of the shop's configuration and migrations, with a stand-in Worker and no static files. */
function checkout(): string {
  const dir = mkdtempSync(join(tmpdir(), "setup-production-"));
  cpSync(join(ROOT, "migrations"), join(dir, "migrations"), { recursive: true });
  const config = readFileSync(join(ROOT, "wrangler.toml"), "utf8").replace(/\[assets\]\nrun_worker_first = .*\n/, "");
  writeFileSync(join(dir, "wrangler.toml"), config);
  mkdirSync(join(dir, "workers"));
  writeFileSync(
    join(dir, "workers", "app.ts"),
    'import { DurableObject } from "cloudflare:workers";\nexport class ChatRoom extends DurableObject {}\nexport default { fetch: () => new Response("ok"), queue() {}, scheduled() {} };\n',
  );
  return dir;
}

function setup(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, "scripts", "setup-production.ts"), "--config", join(folder, "wrangler.toml"), "--dry-run", "--skip-build", ...args],
    {
      cwd: folder,
      encoding: "utf8",
      env: {
        ...process.env,
        PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}`,
        CLOUDFLARE_API_BASE_URL: standIn.url,
        CLOUDFLARE_API_TOKEN: "stand-in-token",
        CLOUDFLARE_ACCOUNT_ID: STAND_IN_ACCOUNT,
        WRANGLER_SEND_METRICS: "false",
        CI: "1",
        ...env,
      },
    },
  );
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

const answers = {
  SHOP_DOMAIN: "shop.example.org",
  SHOPIFY_WEBHOOK_SECRET: "whsec-0123456789abcdef",
  CRYPTO_BTC_XPUB: BTC_WALLET,
};

describe("npm run setup:production", () => {
  before(async () => {
    standIn = await startCloudflareStandIn();
    folder = checkout();
  });
  after(async () => {
    await standIn.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("refuses a bad value with the shop's own message, before changing the configuration", () => {
    const refused = setup([], { ...answers, SHOPIFY_WEBHOOK_SECRET: "short" });
    assert.equal(refused.status, 1);
    assert.match(refused.out, /SHOPIFY_WEBHOOK_SECRET is too short: copy the whole signing secret/);
  });

  it("makes everything on the first run, and changes nothing on the second", () => {
    const before = standIn.changes.length;
    const first = setup([], answers);
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
    const second = setup([], answers);
    assert.equal(second.status, 0, second.out);
    assert.deepEqual(standIn.changes.slice(before + made.length), [], "the second run changed nothing");
    assert.equal(readFileSync(join(folder, "wrangler.toml"), "utf8"), config);
    assert.equal(standIn.scripts.get("keyshop")!.secrets.get("LICENCE_SIGNING_KEY"), signingKey);
  });

  it("sets up staging apart, under its own names", () => {
    const staged = setup(["--env", "staging"], { ...answers, SHOP_DOMAIN: "staging.shop.example.org" });
    assert.equal(staged.status, 0, staged.out);
    assert.ok([...standIn.databases.values()].some((db) => db.name === "keyshop-staging"));
    assert.ok(standIn.buckets.has("downloads-staging"));
    assert.ok(standIn.queues.has("keyshop-staging-jobs-failed"));
    assert.ok(standIn.scripts.get("keyshop-staging")!.secrets.has("HEALTH_TOKEN"));
  });
});
