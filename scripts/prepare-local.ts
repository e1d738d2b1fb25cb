// Gets a checkout ready to run locally: .dev.vars with every secret local-secrets.example documents
// (demo values, or a key generated for this checkout where one must never be shared; keys you
// already set are kept), then the D1 migrations applied to the local
// database. Safe to run any number of times. With --secrets-only it stops after .dev.vars (the
// type generator needs it to know the secrets).
import { spawnSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";

/** Secrets made fresh for each checkout instead of copied from the example. */
const GENERATED: Record<string, () => string> = {
  LICENCE_SIGNING_KEY: () => generateKeyPairSync("ed25519").privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
  HEALTH_TOKEN: () => randomBytes(32).toString("base64url"),
};

const example = readFileSync("local-secrets.example", "utf8");
const current = existsSync(".dev.vars") ? readFileSync(".dev.vars", "utf8") : "";
const nameOf = (line: string) => /^([A-Z0-9_]+)=/.exec(line)?.[1];
/** A line that names a setting but gives it no value: `NAME=`, `NAME=""` or `NAME=''`. */
const isEmpty = (line: string) => /^[A-Z0-9_]+=\s*(""|'')?\s*$/.test(line);

// A generated secret whose line is there but empty (a .dev.vars copied by hand from the example)
// is filled in place; every other line is kept as it is.
const filled: string[] = [];
const lines = current.split("\n").map((line) => {
  const name = nameOf(line);
  const generate = name === undefined ? undefined : GENERATED[name];
  if (!generate || !isEmpty(line)) return line;
  filled.push(name!);
  return `${name}="${generate()}"`;
});
const have = new Set(lines.map(nameOf));
const missing = example.split("\n").flatMap((line) => {
  const name = nameOf(line);
  if (name === undefined || have.has(name)) return [];
  const generate = GENERATED[name];
  return [generate ? `${name}="${generate()}"` : line];
});
if (missing.length > 0 || filled.length > 0) {
  const kept = lines.join("\n");
  writeFileSync(".dev.vars", `${kept}${kept && !kept.endsWith("\n") ? "\n" : ""}${missing.join("\n")}${missing.length > 0 ? "\n" : ""}`);
  const said = [
    filled.length > 0 ? `filled the empty ${filled.join(", ")}` : "",
    missing.length > 0 ? `added ${missing.map(nameOf).join(", ")}` : "",
  ].filter(Boolean);
  console.log(`.dev.vars: ${said.join("; ")} (local values; see local-secrets.example).`);
}

if (!process.argv.includes("--secrets-only")) applyMigrations();

/**
 * Applies pending D1 migrations to the local database and says so in one line. Wrangler prints a
 * table per migration, which is noise when it works; when it fails, all of its output is shown
 * and the start stops with its exit code.
 */
function applyMigrations() {
  // CI=true: wrangler skips its "continue?" prompt.
  const run = spawnSync("wrangler", ["d1", "migrations", "apply", "DB", "--local"], {
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
  });
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  if (run.status !== 0) {
    process.stderr.write(output);
    if (run.error) console.error(run.error.message);
    console.error("Local database: applying the migrations in migrations/ failed (wrangler output above).");
    process.exit(run.status || 1);
  }
  // Wrangler names every migration it applies; an up-to-date database names none.
  const applied = readdirSync("migrations").filter((file) => file.endsWith(".sql") && output.includes(file)).length;
  console.log(applied === 0 ? "Local database up to date" : `Local database: ${applied} migration${applied === 1 ? "" : "s"} applied`);
}
