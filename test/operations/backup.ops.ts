// npm run backup from the live shop (here the stand-in for Cloudflare's API: its D1 export and its
// bucket listing), then npm run restore of that folder into a local database, and restore's
// refusals: a folder that already holds a database, and the dev database without --yes.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { STAND_IN_ACCOUNT, type StandIn, startCloudflareStandIn } from "./cloudflare-stand-in.ts";
import { runScript, runWrangler, scratchCheckout } from "./scratch-checkout.ts";

const MEMBER = { id: "backup-test-member", email: "backed-up@shop.test" };
const RELEASE = {
  key: "vertex-loader/2.0.0/vertex-loader.exe",
  size: 4096,
  etag: "0f343b0931126a20f133d67c2b018a3b",
  last_modified: "2026-11-01T10:00:00.000Z",
};

let standIn: StandIn;
let folder: string;
let backup: string;

/** The local D1 file in a state folder. */
function localDatabase(state: string): DatabaseSync {
  const dir = join(state, "v3", "d1", "miniflare-D1DatabaseObject");
  const file = readdirSync(dir).find((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite")!;
  return new DatabaseSync(join(dir, file), { readOnly: true });
}

describe("npm run backup and npm run restore", () => {
  before(async () => {
    standIn = await startCloudflareStandIn();
    folder = scratchCheckout("backup");
    // The live shop: its database with the migrations applied and a member, its bucket with a release.
    const created = (await (
      await fetch(`${standIn.url}/accounts/${STAND_IN_ACCOUNT}/d1/database`, {
        method: "POST",
        headers: { Authorization: "Bearer stand-in-token", "Content-Type": "application/json" },
        body: JSON.stringify({ name: "keyshop" }),
      })
    ).json()) as { result: { uuid: string } };
    const config = join(folder, "wrangler.toml");
    writeFileSync(config, readFileSync(config, "utf8").replace(/database_id = "0{8}-[0-9-]+"/, `database_id = "${created.result.uuid}"`));
    const migrated = await runWrangler(standIn, folder, ["d1", "migrations", "apply", "DB", "--remote"]);
    assert.equal(migrated.status, 0, migrated.out);
    standIn.databases
      .get(created.result.uuid)!
      .sql.prepare("insert into users (id, email, created_at) values (?, ?, ?)")
      .run(MEMBER.id, MEMBER.email, Date.now());
    standIn.buckets.add("downloads");
    standIn.objects.set("downloads", [RELEASE]);
  });
  after(async () => {
    await standIn.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("backs up the live database and the bucket's listing into a dated folder, changing nothing", async () => {
    const changes = standIn.changes.length;
    const run = await runScript(standIn, folder, "backup.ts", ["--out", join(folder, "backups")]);
    assert.equal(run.status, 0, run.out);
    const [dated, ...others] = readdirSync(join(folder, "backups"));
    assert.deepEqual(others, []);
    assert.match(dated!, /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/);
    backup = join(folder, "backups", dated!);
    assert.match(readFileSync(join(backup, "database.sql"), "utf8"), new RegExp(MEMBER.email.replace(".", "\\.")));
    const listing = JSON.parse(readFileSync(join(backup, "bucket.json"), "utf8")) as {
      bucket: string;
      objects: { key: string; size: number }[];
    };
    assert.equal(listing.bucket, "downloads");
    assert.deepEqual(
      listing.objects.map(({ key, size }) => ({ key, size })),
      [{ key: RELEASE.key, size: RELEASE.size }],
    );
    const manifest = JSON.parse(readFileSync(join(backup, "backup.json"), "utf8")) as { from: string; database: string; objects: number };
    assert.deepEqual([manifest.from, manifest.database, manifest.objects], ["remote", "keyshop", 1]);
    assert.deepEqual(standIn.changes.slice(changes), [], "a backup changes nothing in the account");
    assert.deepEqual(standIn.unknown, []);
  });

  it("restores the backup into a fresh local database, the same rows and migrations", async () => {
    const state = join(folder, "restored");
    const run = await runScript(standIn, folder, "restore.ts", [backup, "--persist-to", state]);
    assert.equal(run.status, 0, run.out);
    assert.match(run.out, /1 of the 1 file\(s\) the backup lists are not in the local bucket downloads/);
    const db = localDatabase(state);
    try {
      assert.deepEqual({ ...db.prepare("select id, email from users where id = ?").get(MEMBER.id) }, MEMBER);
      const live = [...standIn.databases.values()][0]!.sql.prepare("select name from d1_migrations order by id").all();
      assert.deepEqual(
        db
          .prepare("select name from d1_migrations order by id")
          .all()
          .map((row) => ({ ...row })),
        live.map((row) => ({ ...row })),
      );
    } finally {
      db.close();
    }
  });

  it("refuses a folder that already holds a database", async () => {
    const run = await runScript(standIn, folder, "restore.ts", [backup, "--persist-to", join(folder, "restored")]);
    assert.equal(run.status, 1);
    assert.match(run.out, /already holds a database/);
  });

  it("replaces the dev database only with --yes", async () => {
    const run = await runScript(standIn, folder, "restore.ts", [backup, "--into-dev"]);
    assert.equal(run.status, 1);
    assert.match(run.out, /This replaces the dev server's database/);
    assert.equal(existsSync(join(folder, ".wrangler")), false);
  });
});
