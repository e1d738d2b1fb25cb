// The check that keeps [env.staging] a faithful copy of the top level (scripts/check-environments.ts,
// run by `npm run lint`): it passes on the shop's own wrangler.toml and names each kind of drift.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";

const ROOT = join(import.meta.dirname, "..", "..");
const CONFIG = readFileSync(join(ROOT, "wrangler.toml"), "utf8");

/** The check's verdict on the shop's configuration as `change` rewrites it. */
function check(change: (config: string) => string) {
  const folder = mkdtempSync(join(tmpdir(), "check-environments-"));
  try {
    const config = join(folder, "wrangler.toml");
    writeFileSync(config, change(CONFIG));
    const run = spawnSync(process.execPath, [join(ROOT, "scripts", "check-environments.ts"), config], {
      encoding: "utf8",
      timeout: 60_000,
    });
    return { status: run.status, out: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Replaces the first match of `pattern` after the [env.staging] header (by default, removes it). */
const inStaging =
  (pattern: RegExp, replacement = "") =>
  (config: string) => {
    const at = config.indexOf("[env.staging]");
    return config.slice(0, at) + config.slice(at).replace(pattern, replacement);
  };

describe("scripts/check-environments.ts", () => {
  it("passes the shop's own configuration", () => {
    const verdict = check((config) => config);
    assert.equal(verdict.status, 0, verdict.out);
  });

  it("names a variable staging lacks", () => {
    const verdict = check(inStaging(/^LICENCE_WATCH_SEND_SECONDS = .*\n/m));
    assert.equal(verdict.status, 1);
    assert.match(verdict.out, /\[env\.staging\] lacks vars the top level has: LICENCE_WATCH_SEND_SECONDS/);
  });

  it("names a Durable Object binding staging lacks", () => {
    const verdict = check(inStaging(/\[\[env\.staging\.durable_objects\.bindings\]\]\nname = "KEY_WATCH"\nclass_name = "KeyWatch"\n/));
    assert.equal(verdict.status, 1);
    assert.match(verdict.out, /lacks Durable Objects the top level has: KEY_WATCH → KeyWatch/);
  });

  it("names a binding only staging has", () => {
    const verdict = check((config) => `${config}\n[[env.staging.r2_buckets]]\nbinding = "EXTRA"\nbucket_name = "extra-staging"\n`);
    assert.equal(verdict.status, 1);
    assert.match(verdict.out, /has R2 bindings the top level lacks: EXTRA/);
  });

  it("refuses a staging that uses production's database", () => {
    const verdict = check(inStaging(/database_name = "keyshop-staging"/, 'database_name = "keyshop"'));
    assert.equal(verdict.status, 1);
    assert.match(verdict.out, /\[env\.staging\] uses production's own D1 database keyshop/);
  });
});
