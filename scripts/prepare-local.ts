// Gets a checkout ready to run locally: .dev.vars with every secret local-secrets.example documents
// (demo values; keys you already set are kept), then the D1 migrations applied to the local
// database. Safe to run any number of times. With --secrets-only it stops after .dev.vars (the
// type generator needs it to know the secrets).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const names = (text: string) => new Set([...text.matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]));
const example = readFileSync("local-secrets.example", "utf8");
const current = existsSync(".dev.vars") ? readFileSync(".dev.vars", "utf8") : "";
const have = names(current);
const missing = example.split("\n").filter((line) => {
  const name = /^([A-Z0-9_]+)=/.exec(line)?.[1];
  return name !== undefined && !have.has(name);
});
if (missing.length > 0) {
  writeFileSync(".dev.vars", `${current}${current && !current.endsWith("\n") ? "\n" : ""}${missing.join("\n")}\n`);
  console.log(`.dev.vars: added ${missing.map((l) => l.split("=")[0]).join(", ")} (local demo values from local-secrets.example).`);
}

if (!process.argv.includes("--secrets-only")) {
  execFileSync("wrangler", ["d1", "migrations", "apply", "DB", "--local"], { stdio: "inherit", env: { ...process.env, CI: "true" } });
}
