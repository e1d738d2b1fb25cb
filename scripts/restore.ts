// `npm run restore -- <backup folder>`: reads a folder `npm run backup` wrote into a local database,
// then applies any migration newer than the backup. By default into a fresh state folder inside the
// backup (`<folder>/state`), or the folder named with --persist-to (which must hold no database
// yet); `--into-dev --yes` replaces the dev server's own database instead. Serve what was restored
// with `LOCAL_STATE_DIR=<state> npm run dev`, or a production build with
// `npx wrangler dev -c build/server/wrangler.json --persist-to <state>` (docs/backups.md).
//
//   npm run restore -- <folder> [--persist-to <state folder> | --into-dev --yes] [--env staging] [--config wrangler.toml]
//
// Only local databases are written: a live database is put back with D1 Time Travel, whose
// commands docs/backups.md gives.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { unstable_splitSqlQuery } from "wrangler";
import { type BackupManifest, type BucketObject, fail, localObjects, storesOf, type Target, wrangler } from "./wrangler-run.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "persist-to": { type: "string" },
    "into-dev": { type: "boolean", default: false },
    yes: { type: "boolean", default: false },
    env: { type: "string" },
    config: { type: "string", default: "wrangler.toml" },
  },
});

const folder = resolve(positionals[0] ?? fail("Name the backup folder: npm run restore -- backups/<time>"));
const sqlFile = join(folder, "database.sql");
if (!existsSync(sqlFile) || !existsSync(join(folder, "backup.json")))
  fail(`${folder} is not a backup: it should hold database.sql and backup.json, as npm run backup writes them`);
const manifest = JSON.parse(readFileSync(join(folder, "backup.json"), "utf8")) as BackupManifest;
if (values["into-dev"] && values["persist-to"]) fail("Choose one place: --into-dev or --persist-to");

const target: Target = { config: resolve(values.config), environment: values.env ?? null };
const { database, bucket } = storesOf(target);
const devState = join(dirname(target.config), ".wrangler", "state");
const state = values["into-dev"] ? devState : resolve(values["persist-to"] ?? join(folder, "state"));
const databases = join(state, "v3", "d1");
const holdsDatabase = existsSync(databases) && readdirSync(databases).length > 0;

if (values["into-dev"]) {
  if (!values.yes)
    fail(
      `This replaces the dev server's database in ${databases} with the backup of ${manifest.createdAt}: ` +
        "everything made locally since is lost. Stop the dev server, then run again with --into-dev --yes.",
    );
  // Only the databases go: the dev bucket's files and the chat's rooms stay.
  rmSync(databases, { recursive: true, force: true });
} else if (holdsDatabase) {
  fail(`${state} already holds a database: name an empty folder with --persist-to, or use --into-dev --yes to replace the dev one`);
}

console.log(`Restoring the ${manifest.from} backup of ${manifest.createdAt} (${manifest.database}) into ${state}`);
const scratch = mkdtempSync(join(tmpdir(), "keyshop-restore-"));
let loaded: { ok: boolean; out: string };
try {
  const ordered = join(scratch, "database.sql");
  writeFileSync(ordered, tablesBeforeRows(readFileSync(sqlFile, "utf8")), { mode: 0o600 });
  loaded = wrangler(target, ["d1", "execute", database.binding, "--local", "--persist-to", state, "--file", ordered, "--yes"], {
    allowFailure: true,
  });
} finally {
  // The copy holds every member's data: gone before any stop.
  rmSync(scratch, { recursive: true, force: true });
}
if (!loaded.ok) fail(`Loading the backup failed:\n${loaded.out.trim()}`);
console.log("  database restored");

/**
 * The export, with every table made before any row goes in. An export lists each table with its
 * rows in the order the tables were made, so a table a migration rebuilt comes after the tables
 * that refer to it, and SQLite refuses a row whose foreign key names a table not made yet (the
 * export's deferred foreign keys only wait for rows, not for tables). Indexes come last.
 */
function tablesBeforeRows(sql: string): string {
  const rank = (statement: string) => {
    if (/^\s*pragma\b/i.test(statement)) return 0;
    if (/^\s*create\s+table\b/i.test(statement)) return 1;
    if (/^\s*insert\b/i.test(statement)) return 2;
    return 3;
  };
  const statements = unstable_splitSqlQuery(sql).map((statement, at) => ({ statement, at, rank: rank(statement) }));
  statements.sort((a, b) => a.rank - b.rank || a.at - b.at);
  return statements.map(({ statement }) => `${statement.trim().replace(/;$/, "")};`).join("\n");
}
// A backup made before the newest migrations gets them now, as the live database did.
const migrated = wrangler(target, ["d1", "migrations", "apply", database.binding, "--local", "--persist-to", state], { input: "y\n" }).out;
console.log(/No migrations to apply/i.test(migrated) ? "  its schema is up to date" : "  newer migrations applied");

// The files themselves are not in a backup; say which ones this local bucket lacks.
const listed = (JSON.parse(readFileSync(join(folder, "bucket.json"), "utf8")) as { objects: BucketObject[] }).objects;
const present = new Set((await localObjects(target, state)).map((object) => object.key));
const missing = listed.filter((object) => !present.has(object.key));
console.log(
  missing.length === 0
    ? `  all ${listed.length} file(s) the backup lists are in the local bucket ${bucket}`
    : `  ${missing.length} of the ${listed.length} file(s) the backup lists are not in the local bucket ${bucket} (they live in R2: docs/backups.md), e.g. ${missing[0]!.key}`,
);

console.log(`
✓ Restored into ${state}.
  Serve it: ${values["into-dev"] ? "npm run dev" : `LOCAL_STATE_DIR=${state} npm run dev`}
  or a production build: npx wrangler dev -c build/server/wrangler.json --persist-to ${state}`);
