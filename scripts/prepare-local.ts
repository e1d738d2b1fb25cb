// Gets a checkout ready to run locally: secrets from the example file on first run, then the
// D1 migrations applied to the local database. Safe to run any number of times.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";

if (!existsSync(".dev.vars")) {
  copyFileSync(".dev.vars.example", ".dev.vars");
  console.log("Created .dev.vars from .dev.vars.example (local demo secrets).");
}

execFileSync("wrangler", ["d1", "migrations", "apply", "DB", "--local"], {
  stdio: "inherit",
  env: { ...process.env, CI: "true" },
});
