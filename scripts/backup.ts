// `npm run backup`: the shop's database as SQL (wrangler's `d1 export`) and a listing of every
// object in its downloads bucket, into a dated folder: backups/2026-11-28T10-30-00Z/ (never
// committed). From the live shop by default; `--local` takes the local database instead (the dev
// server's, or the state folder given with --persist-to). `npm run restore -- <folder>` reads it
// back into a local database (docs/backups.md).
//
//   npm run backup -- [--local [--persist-to <state folder>]] [--env staging] [--out backups] [--config wrangler.toml]
//
// The bucket's objects themselves are not copied: R2 keeps them (see docs/backups.md), and the
// listing tells what a restored database expects to find there. Wrangler has no command that lists
// a bucket, so the live listing comes from Cloudflare's API with wrangler's own sign-in
// (`wrangler auth token`), and the local one from wrangler's local bindings.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  type BackupManifest,
  type BucketObject,
  fail,
  localObjects,
  storesOf,
  type Target,
  withScratchConfig,
  wrangler,
} from "./wrangler-run.ts";

const { values } = parseArgs({
  options: {
    local: { type: "boolean", default: false },
    "persist-to": { type: "string" },
    env: { type: "string" },
    out: { type: "string", default: "backups" },
    config: { type: "string", default: "wrangler.toml" },
  },
});
if (values["persist-to"] && !values.local) fail("--persist-to names a local state folder: add --local");

const target: Target = { config: resolve(values.config), environment: values.env ?? null };
const { database, bucket } = storesOf(target);
const createdAt = new Date();
const folder = resolve(
  values.out,
  createdAt
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(":", "-"),
);
// Only its owner may read it: it holds every member's data.
mkdirSync(folder, { recursive: true, mode: 0o700 });
const from = values.local ? "local" : "remote";
console.log(`Backing up the ${from} ${target.environment ?? "production"} database ${database.name} and bucket ${bucket} into ${folder}`);

// --- The database. ---

const sqlFile = join(folder, "database.sql");
const statePath = values["persist-to"] ? resolve(values["persist-to"]) : null;
if (statePath) await exportFromState(statePath);
else wrangler(target, ["d1", "export", database.binding, `--${from}`, "--output", sqlFile, "--skip-confirmation"]);
console.log("  database.sql written");

/**
 * `wrangler d1 export --local` reads the state beside its configuration file and has no
 * --persist-to, so it is pointed at a scratch configuration whose .wrangler/state is `state`.
 */
async function exportFromState(state: string) {
  const d1 = { d1_databases: [{ binding: database.binding, database_name: database.name, database_id: database.id }] };
  await withScratchConfig(d1, state, async (config) => {
    wrangler({ config, environment: null }, ["d1", "export", database.binding, "--local", "--output", sqlFile]);
  });
}

// --- The bucket's listing. ---

const objects = values.local ? await localObjects(target, statePath) : await remoteObjects(bucket);
writeFileSync(join(folder, "bucket.json"), `${JSON.stringify({ bucket, objects }, null, 2)}\n`);
console.log(`  bucket.json written (${objects.length} object${objects.length === 1 ? "" : "s"})`);

const manifest: BackupManifest = {
  createdAt: createdAt.toISOString(),
  from,
  environment: target.environment,
  database: database.name,
  bucket,
  objects: objects.length,
};
writeFileSync(join(folder, "backup.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`\n✓ Backed up. Restore it locally with: npm run restore -- ${folder}`);

/** Every object in the live bucket, from Cloudflare's API with wrangler's sign-in. */
async function remoteObjects(name: string): Promise<BucketObject[]> {
  const token = (JSON.parse(wrangler(target, ["auth", "token", "--json"]).out.replace(/^[^{]*/, "")) as { token?: string }).token;
  if (!token) fail("wrangler gave no API token to list the bucket with: run `npx wrangler login`, or set CLOUDFLARE_API_TOKEN");
  const account = process.env.CLOUDFLARE_ACCOUNT_ID ?? accountOfSignIn();
  const api = process.env.CLOUDFLARE_API_BASE_URL ?? "https://api.cloudflare.com/client/v4";
  const found: BucketObject[] = [];
  let cursor = "";
  do {
    const url = `${api}/accounts/${account}/r2/buckets/${encodeURIComponent(name)}/objects?per_page=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    const page = (await response.json()) as {
      success: boolean;
      errors?: { message: string }[];
      result: { key: string; size: number; etag: string; last_modified: string }[];
      result_info?: { cursor?: string; is_truncated?: boolean };
    };
    if (!response.ok || !page.success)
      fail(`Listing the bucket ${name} failed (${response.status}): ${page.errors?.map((e) => e.message).join("; ") ?? ""}`);
    for (const object of page.result) found.push({ key: object.key, size: object.size, etag: object.etag, uploaded: object.last_modified });
    cursor = page.result_info?.is_truncated ? (page.result_info.cursor ?? "") : "";
  } while (cursor);
  return found;
}

/** The account wrangler is signed in to, when it is only one. */
function accountOfSignIn(): string {
  const who = JSON.parse(wrangler(target, ["whoami", "--json"]).out.replace(/^[^{]*/, "")) as { accounts?: { id: string }[] };
  const accounts = who.accounts ?? [];
  if (accounts.length !== 1) fail("Set CLOUDFLARE_ACCOUNT_ID to the shop's account: wrangler is signed in to more than one");
  return accounts[0]!.id;
}
