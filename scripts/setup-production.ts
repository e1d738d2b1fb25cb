// Going live in one command (decision 098): `npm run setup:production` takes a fresh clone to a
// deployed shop, and `npm run setup:production -- --env staging` does the same for the staging
// Worker. Each step first looks at what the account already has and only makes what is missing, so
// a second run changes nothing:
//   1. the D1 database, the R2 bucket and both queues (their names come from wrangler.toml); the
//      database's id is written back into wrangler.toml, since the migrations need it before the
//      first deploy;
//   2. the secrets: generated when they can be (licence signing key, TOTP key, health token), asked
//      for when they cannot (Shopify, mail, wallets, Discord), each refused with the message the
//      shop itself gives for that setting; a secret already set is never asked for or replaced;
//   3. the shop's domain and the other plain settings it implies, written into wrangler.toml;
//   4. the migrations, the build and the deploy;
//   5. the addresses to paste into Shopify and Discord.
//
//   npm run setup:production -- [--env staging] [--dry-run] [--skip-build] [--config wrangler.toml]
//
// Values can also come from the environment under the setting's own name (SHOP_DOMAIN for the
// domain), which is how an unattended run answers; with no terminal, a value neither given nor set
// is left unset and the doctor reports it. --dry-run deploys with `wrangler deploy --dry-run`.
import { spawnSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import type * as v from "valibot";
import {
  discordBotTokenSchema,
  healthTokenSchema,
  mailApiUrlSchema,
  mailFromSchema,
  mailKeySchema,
  settingProblem,
  shopDomainSchema,
  storeDomainSchema,
  storefrontTokenSchema,
  webhookSecretSchema,
} from "../app/server/platform/settings.server.ts";
import { walletKeySchema } from "../app/server/crypto/wallet.server.ts";

const { values } = parseArgs({
  options: {
    env: { type: "string" },
    "dry-run": { type: "boolean", default: false },
    "skip-build": { type: "boolean", default: false },
    config: { type: "string", default: "wrangler.toml" },
  },
});

const environment = values.env ?? null;
if (environment !== null && !/^[a-z][a-z0-9-]*$/.test(environment)) fail(`--env must be an environment's name, like staging`);
const configPath = values.config;
const prefix = environment ? `env.${environment}.` : "";

function fail(message: string): never {
  console.error(`\n✗ ${message}`);
  process.exit(1);
}

function step(title: string) {
  console.log(`\n▸ ${title}`);
}

/** Runs wrangler against this configuration and environment; its output, or the run stops with its error. */
function wrangler(args: string[], options: { allowFailure?: boolean; input?: string } = {}): { ok: boolean; out: string } {
  // An empty --env names the top level, which wrangler asks for once the file has environments.
  const full = [...args, "--config", configPath, `--env=${environment ?? ""}`];
  const run = spawnSync("wrangler", full, {
    encoding: "utf8",
    input: options.input,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_HIDE_BANNER: "true" },
  });
  const out = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  if (run.status !== 0 && !options.allowFailure) fail(`wrangler ${args.join(" ")} failed:\n${out.trim()}`);
  return { ok: run.status === 0, out };
}

// --- wrangler.toml: read a section's settings, and change one line in place (comments stay). ---

let config = readFileSync(configPath, "utf8");

/** The lines of the section `header` (e.g. "[vars]" or "[[env.staging.d1_databases]]"): start and end indexes. */
function section(lines: string[], header: string): [number, number] | null {
  const start = lines.findIndex((line) => line.trim() === header);
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
  return [start, end];
}

function setting(header: string, key: string): string | null {
  const lines = config.split("\n");
  const found = section(lines, header);
  if (!found) return null;
  for (let i = found[0] + 1; i < found[1]; i++) {
    const match = new RegExp(`^${key}\\s*=\\s*"(.*)"\\s*$`).exec(lines[i]!);
    if (match) return match[1]!;
  }
  return null;
}

/** Sets `key` in the section; true when the file changed. */
function setSetting(header: string, key: string, value: string): boolean {
  if (setting(header, key) === value) return false;
  const lines = config.split("\n");
  const found = section(lines, header);
  if (!found) fail(`${configPath} has no ${header} section`);
  const line = `${key} = ${JSON.stringify(value)}`;
  const at = lines.slice(found[0] + 1, found[1]).findIndex((l) => new RegExp(`^${key}\\s*=`).test(l));
  if (at >= 0) lines[found[0] + 1 + at] = line;
  else lines.splice(found[0] + 1, 0, line);
  config = lines.join("\n");
  writeFileSync(configPath, config);
  return true;
}

const varsHeader = `[${prefix}vars]`;
const d1Header = `[[${prefix}d1_databases]]`;
const databaseName = setting(d1Header, "database_name") ?? fail(`${configPath} names no D1 database under ${d1Header}`);
const bucketName = setting(`[[${prefix}r2_buckets]]`, "bucket_name") ?? fail(`${configPath} names no R2 bucket`);
/** Every queue this environment produces to, consumes or dead-letters into. */
function queueNamesOf(text: string): string[] {
  const names = new Set<string>();
  let inQueues = false;
  for (const line of text.split("\n")) {
    const header = /^\s*\[\[?([^\]]+)\]\]?\s*$/.exec(line);
    if (header) inQueues = header[1]!.startsWith(`${prefix}queues.`);
    const queue = inQueues ? /^(?:queue|dead_letter_queue)\s*=\s*"([^"]+)"/.exec(line) : null;
    if (queue) names.add(queue[1]!);
  }
  return [...names];
}
const queueNames = queueNamesOf(config);
const workerName = environment ? setting(`[env.${environment}]`, "name") : /^name\s*=\s*"([^"]+)"/m.exec(config)?.[1];

console.log(`Setting up ${environment ? `the ${environment} environment` : "production"} from ${configPath}.`);

// --- 1. Resources. ---

step("Cloudflare account");
const who = wrangler(["whoami"], { allowFailure: true });
if (!who.ok || /not authenticated/i.test(who.out))
  fail("Not signed in to Cloudflare: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN), then run this again.");
console.log("  signed in");

step(`D1 database ${databaseName}`);
const databases = JSON.parse(wrangler(["d1", "list", "--json"]).out.replace(/^[^[]*/, "")) as { uuid: string; name: string }[];
let database = databases.find((db) => db.name === databaseName);
if (!database) {
  wrangler(["d1", "create", databaseName]);
  const after = JSON.parse(wrangler(["d1", "list", "--json"]).out.replace(/^[^[]*/, "")) as { uuid: string; name: string }[];
  database = after.find((db) => db.name === databaseName) ?? fail(`The database ${databaseName} was not created`);
  console.log(`  created (${database.uuid})`);
} else console.log(`  exists (${database.uuid})`);
if (setSetting(d1Header, "database_id", database.uuid)) console.log(`  its id written into ${configPath}`);

step(`R2 bucket ${bucketName}`);
const buckets = wrangler(["r2", "bucket", "list"]).out;
if (new RegExp(`^name:\\s+${bucketName}\\s*$`, "m").test(buckets)) console.log("  exists");
else {
  wrangler(["r2", "bucket", "create", bucketName]);
  console.log("  created");
}

step(`Queues ${queueNames.join(", ")}`);
for (const queue of queueNames) {
  const info = wrangler(["queues", "info", queue], { allowFailure: true });
  if (info.ok) console.log(`  ${queue} exists`);
  else {
    wrangler(["queues", "create", queue]);
    console.log(`  ${queue} created`);
  }
}

// --- 2. Secrets. ---

step("Secrets");
const listed = wrangler(["secret", "list", "--format", "json"], { allowFailure: true });
const existing = new Set(listed.ok ? (JSON.parse(listed.out.replace(/^[^[]*/, "")) as { name: string }[]).map((s) => s.name) : []);

const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
const prompt = interactive ? createInterface({ input: process.stdin, output: process.stdout }) : null;

/** A value from the environment or the owner, checked with the shop's own rule; empty when skipped. */
async function ask(name: string, question: string, schema: v.GenericSchema<string, unknown> | null): Promise<string> {
  const given = process.env[name]?.trim();
  if (given !== undefined && given !== "") {
    const problem = schema ? settingProblem(schema, given) : null;
    if (problem) fail(`${name}: ${problem}`);
    return given;
  }
  if (!prompt) return "";
  for (;;) {
    const answer = (await prompt.question(`  ${question} (Enter to skip): `)).trim();
    if (answer === "") return "";
    const problem = schema ? settingProblem(schema, answer) : null;
    if (!problem) return answer;
    console.log(`  ✗ ${problem}`);
  }
}

const generated: Record<string, () => string> = {
  LICENCE_SIGNING_KEY: () => generateKeyPairSync("ed25519").privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
  TOTP_ENCRYPTION_KEY: () => randomBytes(32).toString("base64"),
  // One the owner keeps elsewhere may be given instead, if it passes the shop's own rule.
  HEALTH_TOKEN: () => {
    const given = process.env.HEALTH_TOKEN?.trim();
    const problem = given ? settingProblem(healthTokenSchema, given) : null;
    if (problem) fail(problem);
    return given || randomBytes(32).toString("base64url");
  },
};
const asked: [string, string, v.GenericSchema<string, unknown> | null][] = [
  ["SHOPIFY_WEBHOOK_SECRET", "Shopify webhook signing secret (Settings → Notifications → Webhooks)", webhookSecretSchema],
  ["SHOPIFY_STOREFRONT_TOKEN", "Shopify Storefront API public access token", storefrontTokenSchema],
  ["SHOPIFY_ADMIN_TOKEN", "Shopify Admin API token (draft orders, for upgrades by card)", null],
  ["MAIL_API_KEY", "Mail API key", mailKeySchema],
  ["CRYPTO_BTC_XPUB", "Bitcoin wallet's account key (zpub or xpub)", walletKeySchema("BTC")],
  ["CRYPTO_LTC_XPUB", "Litecoin wallet's account key (zpub, xpub, Ltub or Mtub)", walletKeySchema("LTC")],
  ["DISCORD_BOT_TOKEN", "Discord bot token", discordBotTokenSchema],
  ["DISCORD_CLIENT_SECRET", "Discord OAuth client secret", null],
];

const toSet: Record<string, string> = {};
for (const [name, make] of Object.entries(generated)) {
  if (existing.has(name)) console.log(`  ${name} is set`);
  else {
    toSet[name] = make();
    console.log(`  ${name} generated`);
  }
}
for (const [name, question, schema] of asked) {
  if (existing.has(name)) {
    console.log(`  ${name} is set`);
    continue;
  }
  const value = await ask(name, question, schema);
  if (value) toSet[name] = value;
  else console.log(`  ${name} left unset (the doctor will remind you)`);
}
if (Object.keys(toSet).length > 0) {
  const folder = mkdtempSync(join(tmpdir(), "keyshop-secrets-"));
  const file = join(folder, "secrets.json");
  try {
    writeFileSync(file, JSON.stringify(toSet), { mode: 0o600 });
    wrangler(["secret", "bulk", file]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  console.log(`  ${Object.keys(toSet).length} secret(s) set`);
}
// The doctor shows the health door this token; it is kept beside the configuration, never committed.
const tokenFile = join(dirname(configPath), environment ? `.health-token.${environment}` : ".health-token");
if (toSet.HEALTH_TOKEN) writeFileSync(tokenFile, `${toSet.HEALTH_TOKEN}\n`, { mode: 0o600 });
else if (!existsSync(tokenFile)) console.log(`  HEALTH_TOKEN was set before: put it in ${tokenFile} for the doctor`);

// --- 3. Plain settings. ---

step("Settings in " + configPath);
let domain = setting(varsHeader, "WEBAUTHN_RP_ID") ?? "";
if (!domain) domain = (await ask("SHOP_DOMAIN", "The shop's domain, like shop.example.com", shopDomainSchema)).toLowerCase();
if (!domain) fail("The shop's domain is needed (SHOP_DOMAIN, or answer the question): passkeys and e-mail links are bound to it.");
const changes = [
  setSetting(varsHeader, "WEBAUTHN_RP_ID", domain),
  setSetting(varsHeader, "WEBAUTHN_ORIGIN", `https://${domain}`),
  setSetting(varsHeader, "SHOP_URL", `https://${domain}`),
];
const storeDomain =
  setting(varsHeader, "SHOPIFY_STORE_DOMAIN") ||
  (await ask("SHOPIFY_STORE_DOMAIN", "Shopify store domain (my-shop.myshopify.com)", storeDomainSchema));
if (storeDomain) changes.push(setSetting(varsHeader, "SHOPIFY_STORE_DOMAIN", storeDomain.toLowerCase()));
if (existing.has("MAIL_API_KEY") || toSet.MAIL_API_KEY) {
  const apiUrl =
    setting(varsHeader, "MAIL_API_URL") ||
    (await ask("MAIL_API_URL", "Mail API address, like https://api.resend.com/emails", mailApiUrlSchema));
  const from = /example\.com/.test(setting(varsHeader, "MAIL_FROM") ?? "")
    ? await ask("MAIL_FROM", `Sender, like Vertex <no-reply@${domain}>`, mailFromSchema)
    : "";
  if (apiUrl) changes.push(setSetting(varsHeader, "MAIL_API_URL", apiUrl), setSetting(varsHeader, "MAIL_TRANSPORT", "http"));
  if (from) changes.push(setSetting(varsHeader, "MAIL_FROM", from));
}
console.log(changes.some(Boolean) ? `  ${configPath} updated (commit it)` : "  unchanged");
prompt?.close();

// --- 4. Migrations, build, deploy. ---

step("Migrations");
const applied = wrangler(["d1", "migrations", "apply", "DB", "--remote"], { input: "y\n" }).out;
console.log(/No migrations to apply/i.test(applied) ? "  none pending" : "  applied");

if (!values["skip-build"]) {
  step("Build");
  const build = spawnSync("npm", ["run", "build"], { stdio: "inherit", env: { ...process.env, CLOUDFLARE_ENV: environment ?? "" } });
  if (build.status !== 0) fail("The build failed");
}

step(values["dry-run"] ? "Deploy (dry run: nothing is uploaded)" : "Deploy");
const deployed = wrangler(["deploy", ...(values["dry-run"] ? ["--dry-run"] : [])]).out;
const workersDev = /https:\/\/\S+\.workers\.dev/.exec(deployed)?.[0];

// --- 5. What to paste where. ---

const origin = `https://${domain}`;
console.log(`
✓ ${environment ?? "production"} is set up${values["dry-run"] ? " (deploy was a dry run)" : ""}.

  Shop:                  ${origin}${workersDev ? `   (until the domain is routed: ${workersDev})` : ""}
  Worker:                ${workerName}

  Shopify → Settings → Notifications → Webhooks, "Order payment" (JSON):
                         ${origin}/webhooks/shopify
  Discord Developer Portal → OAuth2 → Redirects:
                         ${origin}/auth/discord/callback

  Then: route ${domain} to the Worker (Workers → ${workerName} → Domains), and check the shop with
  npm run doctor -- ${origin}${environment ? ` --env ${environment}` : ""}
`);
