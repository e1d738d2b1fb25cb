// The doctor's drill (decision 098): the production build, served by wrangler's local workerd, once
// with every setting right and once per deliberately broken setting of each kind the doctor checks;
// `npm run doctor` runs against each, and must name exactly that setting's finding (and nothing on
// the right one). Everything stays on this machine: the explorer, the rate source, the catalogue and
// Discord are a stub server here, and no e-mail is sent.
//
//   npm run doctor:drill [-- --built] [--only <case>]
//
// --built: serve the build already in build/ (CI builds once before). Ports: DOCTOR_DRILL_PORT
// (default 4293) for the shop, DOCTOR_DRILL_INSPECTOR_PORT (default 5293) for wrangler's inspector.
import { HDKey } from "@scure/bip32";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { assertFree, secret, stopAndWait, triggerCron, waitFor, wrangler, wranglerDev } from "../bench/shared.ts";

const { values } = parseArgs({ options: { built: { type: "boolean", default: false }, only: { type: "string" } } });
const PORT = Number(process.env.DOCTOR_DRILL_PORT ?? 4293);
const INSPECTOR = Number(process.env.DOCTOR_DRILL_INSPECTOR_PORT ?? 5293);
const URL_ = `http://127.0.0.1:${PORT}`;

/** A stand-in for the outside services the shop asks while the doctor looks: all answered here. */
async function stubServer(): Promise<{ url: string; close: () => void }> {
  const server = createServer((request, response) => {
    const path = request.url ?? "/";
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "Content-Type": typeof body === "string" ? "text/plain" : "application/json" });
      response.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    if (path.startsWith("/esplora/blocks/tip/height")) return send(200, "870000");
    if (path.startsWith("/rates/")) return send(200, { data: { amount: "65000.00", base: "BTC", currency: "USD" } });
    if (path.startsWith("/storefront")) return send(200, { data: { products: { edges: [], pageInfo: { hasNextPage: false } } } });
    // Discord: the bot's token is refused, as Discord answers a reset or mistyped token.
    if (path.startsWith("/discord/")) return send(401, { message: "401: Unauthorized", code: 0 });
    return send(404, { message: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** A wallet key of the shop's own (not a published demo wallet): a fresh account's zpub. */
function ownWallet(): string {
  const zpub = { private: 0x04b2430c, public: 0x04b24746 };
  return HDKey.fromMasterSeed(randomBytes(32), zpub).derive("m/84'/0'/0'").publicExtendedKey;
}

interface DrillCase {
  name: string;
  /** Settings changed from the right ones (an empty value unsets one). */
  vars?: Record<string, string>;
  /** Extra arguments for the doctor. */
  doctor?: string[];
  /** What the doctor must name, one pattern per finding, nothing else. */
  expect: RegExp[];
  /** Whether the cron has run before the doctor looks (it has, on a live shop). */
  cron?: boolean;
  /** What happens to the shop's database (persisted in `state`) before the shop opens it. */
  beforeStart?: (state: string) => void;
  /** What happens to the served shop before the doctor looks. */
  beforeDoctor?: (url: string) => Promise<void>;
}

const HEALTH_TOKEN = randomBytes(24).toString("base64url");

function cases(stub: string): { right: Record<string, string>; list: DrillCase[] } {
  const right: Record<string, string> = {
    HEALTH_TOKEN,
    LICENCE_SIGNING_KEY: secret("LICENCE_SIGNING_KEY"),
    TOTP_ENCRYPTION_KEY: secret("TOTP_ENCRYPTION_KEY"),
    SHOPIFY_WEBHOOK_SECRET: randomBytes(24).toString("hex"),
    SHOPIFY_STOREFRONT_TOKEN: randomBytes(16).toString("hex"),
    SHOPIFY_STOREFRONT_URL: `${stub}/storefront`,
    // Checked, never called: the drill sends no e-mail (--no-mail).
    MAIL_TRANSPORT: "http",
    MAIL_API_URL: "https://mail.invalid/emails",
    MAIL_FROM: "Vertex <no-reply@shop.example.com>",
    MAIL_API_KEY: "drill-mail-key",
    CRYPTO_BTC_XPUB: ownWallet(),
    CRYPTO_LTC_XPUB: "",
    CRYPTO_BTC_EXPLORER_URL: `${stub}/esplora`,
    CRYPTO_RATE_URL: `${stub}/rates/{coin}`,
    WEBAUTHN_RP_ID: "127.0.0.1",
    WEBAUTHN_ORIGIN: URL_,
    DISCORD_BOT_TOKEN: "",
    DISCORD_API_URL: `${stub}/discord`,
  };
  const otherKey = Buffer.from(randomBytes(32)).toString("base64");
  return {
    right,
    list: [
      { name: "right", expect: [] },
      {
        name: "signing key missing",
        vars: { LICENCE_SIGNING_KEY: "" },
        expect: [/signing-key answered \d+/, /LICENCE_SIGNING_KEY/],
      },
      { name: "signing key not the SDK's", doctor: ["--sdk-key", otherKey], expect: [/The program's build carries the public key/] },
      { name: "webhook secret missing", vars: { SHOPIFY_WEBHOOK_SECRET: "" }, expect: [/SHOPIFY_WEBHOOK_SECRET is not set/] },
      { name: "mail transport unset", vars: { MAIL_TRANSPORT: "none" }, expect: [/MAIL_TRANSPORT is "none"/] },
      { name: "mail key missing", vars: { MAIL_API_KEY: "" }, expect: [/MAIL_API_KEY is not set/] },
      { name: "wallet key invalid", vars: { CRYPTO_BTC_XPUB: "zpub-not-a-wallet-key" }, expect: [/CRYPTO_BTC_XPUB is not/] },
      {
        name: "passkey origin not the shop's",
        vars: { WEBAUTHN_RP_ID: "shop.example.com", WEBAUTHN_ORIGIN: "https://shop.example.com" },
        expect: [/WEBAUTHN_ORIGIN is https:\/\/shop\.example\.com, but the shop answers at/],
      },
      {
        name: "Discord token refused",
        vars: { DISCORD_BOT_TOKEN: `${"a".repeat(24)}.${"b".repeat(6)}.${"c".repeat(27)}` },
        expect: [/Discord refused the bot token/],
      },
      { name: "Discord token malformed", vars: { DISCORD_BOT_TOKEN: "not-a-token" }, expect: [/DISCORD_BOT_TOKEN is not a bot token/] },
      { name: "health token wrong", doctor: ["--token=not-the-shops-token-at-all-0000000000"], expect: [/refused the health token/] },
      { name: "two-factor key broken", vars: { TOTP_ENCRYPTION_KEY: "short" }, expect: [/TOTP_ENCRYPTION_KEY must be 32 bytes/] },
      {
        name: "explorer unreachable",
        vars: { CRYPTO_BTC_EXPLORER_URL: `${stub}/nowhere` },
        expect: [/The BTC explorer .* cannot be reached/],
      },
      {
        name: "rate source unreachable",
        vars: { CRYPTO_RATE_URL: `${stub}/nowhere/{coin}` },
        expect: [/exchange rate for BTC cannot be had/],
      },
      { name: "cron stopped", cron: false, expect: [/The cron has never run/] },
      {
        name: "webhooks refused",
        // Shopify signing with a secret the shop no longer has: its deliveries are refused.
        beforeDoctor: async (url) => {
          const refused = await fetch(`${url}/webhooks/shopify`, {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              "X-Shopify-Topic": "orders/paid",
              "X-Shopify-Hmac-Sha256": "bm90IHRoZSBzaWduYXR1cmU=",
            },
            body: "{}",
          });
          if (refused.status !== 401) throw new Error(`a wrongly signed webhook answered ${refused.status}`);
        },
        expect: [/The latest webhook deliveries were refused/],
      },
      {
        name: "migration pending",
        beforeStart: (state) => {
          wrangler([
            "d1",
            "execute",
            "DB",
            "--local",
            "--persist-to",
            state,
            "--command",
            "delete from d1_migrations where id = (select max(id) from d1_migrations)",
          ]);
        },
        expect: [/migration\(s\) are not applied/],
      },
    ],
  };
}

interface DoctorFinding {
  problem: string;
  fix: string;
}

/**
 * Runs the doctor against the served shop; answers every finding it names. Asynchronously: the stub
 * server in this process must keep answering the shop while the doctor waits on it.
 */
async function runDoctor(args: string[]): Promise<DoctorFinding[]> {
  const child = spawn(process.execPath, ["scripts/doctor.ts", URL_, `--token=${HEALTH_TOKEN}`, "--no-mail", "--json", ...args], {
    env: { ...process.env, HEALTH_TOKEN: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise((resolve) => child.once("close", resolve));
  if (!stdout.trim().startsWith("{")) throw new Error(`the doctor printed no report:\n${stdout}\n${stderr}`);
  const report = JSON.parse(stdout) as { checks: { findings: DoctorFinding[] }[] };
  return report.checks.flatMap((check) => check.findings);
}

async function serve(state: string, vars: Record<string, string>, cron: boolean) {
  await assertFree(PORT);
  const args = ["-c", "build/server/wrangler.json", "--persist-to", state, "--inspector-port", String(INSPECTOR)];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child = wranglerDev(args, PORT);
  await waitFor(`${URL_}/robots.txt`);
  // The cron's heartbeat, as a live shop's trigger leaves it every five minutes.
  if (cron) await triggerCron(URL_);
  return child;
}

async function main() {
  if (!values.built) execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  const stub = await stubServer();
  const scratch = mkdtempSync(join(tmpdir(), "doctor-drill-"));
  // The database migrated once; each case starts from a copy of it, with nothing cached by the one before.
  const migrated = join(scratch, "migrated");
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", migrated]);
  const { right, list } = cases(stub.url);
  const failures: string[] = [];
  try {
    for (const drill of list.filter((c) => !values.only || c.name === values.only)) {
      const started = Date.now();
      const state = join(scratch, drill.name.replace(/\W+/g, "-"));
      cpSync(migrated, state, { recursive: true });
      drill.beforeStart?.(state);
      const child = await serve(state, { ...right, ...drill.vars }, drill.cron ?? true);
      // Stopped from outside (Ctrl+C, CI's timeout): the served shop goes too.
      const stopServer = () => {
        child.kill("SIGTERM");
        process.exit(130);
      };
      process.once("SIGINT", stopServer).once("SIGTERM", stopServer);
      try {
        await drill.beforeDoctor?.(URL_);
        const findings = await runDoctor(drill.doctor ?? []);
        const unmatched = drill.expect.filter((pattern) => !findings.some((finding) => pattern.test(finding.problem)));
        const extra = findings.filter((finding) => !drill.expect.some((pattern) => pattern.test(finding.problem)));
        const ok = unmatched.length === 0 && extra.length === 0 && findings.length === drill.expect.length;
        console.log(`${ok ? "✔" : "✘"} ${drill.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
        for (const finding of findings) console.log(`    ${ok ? "" : "found: "}${finding.problem}`);
        if (!ok) {
          for (const pattern of unmatched) console.log(`    not named: ${pattern}`);
          failures.push(drill.name);
        }
      } finally {
        process.off("SIGINT", stopServer).off("SIGTERM", stopServer);
        await stopAndWait([child.pid], () => child.kill("SIGTERM"));
      }
    }
  } finally {
    stub.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.error(`\nThe doctor missed or misnamed: ${failures.join(", ")}`);
    process.exit(1);
  }
  console.log("\nThe doctor named every broken setting, and nothing on the right one.");
}

await main();
