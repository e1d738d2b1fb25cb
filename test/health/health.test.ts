// The live shop's health (decision 098): the report behind the back office's Health page and the
// doctor's /api/health door. Each kind of setting broken on purpose is named, with what to do; a
// shop set up right has nothing to fix once its cron has run.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { findingsOf, type HealthReport } from "~/lib/health";
import { healthReport } from "~/server/health/health-report.server";
import { workerHeartbeats } from "~/server/platform/db/schema.server";
import worker from "../../workers/app";
import { call, createAccount, db, ORIGIN, signIn, unique } from "../helpers";

const TOKEN = env.HEALTH_TOKEN;

const door = (path = "/api/health", init: RequestInit = {}, token = TOKEN) =>
  exports.default.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, ...init.headers } }));

async function runCron() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

const problems = (report: HealthReport, id: string) =>
  report.checks.find((check) => check.id === id)!.findings.map((finding) => finding.problem);

/** A production shop's settings, right: what the broken ones below each change one of. */
const goodProduction = {
  ...env,
  MAIL_TRANSPORT: "http",
  MAIL_API_URL: "https://mail.example.com/emails",
  MAIL_API_KEY: "mail-key",
  MAIL_FROM: "Vertex <no-reply@shop.test>",
  WEBAUTHN_RP_ID: "shop.test",
  WEBAUTHN_ORIGIN: ORIGIN,
  SHOPIFY_STOREFRONT_TOKEN: "0123456789abcdef0123456789abcdef",
  SHOPIFY_STORE_DOMAIN: "vertex.myshopify.com",
  // Not the published demo wallets, which a production shop refuses.
  CRYPTO_BTC_XPUB: "xpub6D3anNhuPFsyitz6c7Kgp1sS3Dcz5CReqh3Pf8CBaBxNy9PYSuKKz4869P2hbxQJccVAKAbfU5xz7VYDBQDcubAPNZ73ADBoxvnMB4PXXYE",
  CRYPTO_LTC_XPUB: "",
} satisfies Env;

const report = (overrides: Partial<Env> = {}, production = true) =>
  healthReport({ db, env: { ...goodProduction, ...overrides } as Env, origin: ORIGIN, production });

beforeAll(async () => {
  await runCron();
  await vi.waitFor(async () => {
    const handled = await db.select().from(workerHeartbeats).where(eq(workerHeartbeats.name, "queue")).get();
    expect(handled).toBeDefined();
  });
});

describe("the health report", () => {
  it("finds nothing to fix on a shop set up right whose cron and queue run", async () => {
    const healthy = await report();
    expect(healthy.checks.flatMap((check) => check.findings)).toEqual([]);
    expect(healthy.publicKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const wallets = healthy.checks.find((check) => check.id === "wallets")!;
    expect(wallets.facts.join(" ")).toMatch(/BTC: the first receive address is bc1q/);
  });

  it("names each broken setting, in the words its own check uses, with what to do", async () => {
    const cases: [string, Partial<Env>, RegExp][] = [
      ["signing-key", { LICENCE_SIGNING_KEY: "not-a-key" }, /LICENCE_SIGNING_KEY is not a base64 PKCS#8 Ed25519 private key/],
      ["webhooks", { SHOPIFY_WEBHOOK_SECRET: "" }, /SHOPIFY_WEBHOOK_SECRET is not set/],
      ["mail", { MAIL_TRANSPORT: "none" }, /MAIL_TRANSPORT is "none"/],
      ["mail", { MAIL_API_KEY: "" }, /MAIL_API_KEY is not set/],
      ["wallets", { CRYPTO_BTC_XPUB: env.CRYPTO_BTC_XPUB }, /CRYPTO_BTC_XPUB is a public demo wallet/],
      ["wallets", { CRYPTO_BTC_XPUB: "xprv-nonsense" }, /CRYPTO_BTC_XPUB is not an extended public key/],
      [
        "chain",
        { CRYPTO_BTC_EXPLORER_URL: `${env.CRYPTO_BTC_EXPLORER_URL}/gone` },
        /^The BTC explorer \(.+\/btc\/gone\) cannot be reached/,
      ],
      ["chain", { CRYPTO_RATE_URL: env.CRYPTO_RATE_URL.replace("-USD", "-EUR") }, /^The exchange rate for BTC cannot be had/],
      ["passkeys", { WEBAUTHN_RP_ID: "", WEBAUTHN_ORIGIN: "" }, /Passkeys are off/],
      [
        "passkeys",
        { WEBAUTHN_RP_ID: "elsewhere.test", WEBAUTHN_ORIGIN: "https://elsewhere.test" },
        /WEBAUTHN_ORIGIN is https:\/\/elsewhere\.test, but the shop answers at https:\/\/shop\.test/,
      ],
      ["discord", { DISCORD_BOT_TOKEN: "not a token" }, /DISCORD_BOT_TOKEN is not a bot token/],
      ["settings", { TOTP_ENCRYPTION_KEY: "c2hvcnQ=" }, /TOTP_ENCRYPTION_KEY must be 32 bytes, base64-encoded/],
      [
        "settings",
        { SHOPIFY_STOREFRONT_TOKEN: "shpat_0123456789abcdef0123456789abcdef" },
        /SHOPIFY_STOREFRONT_TOKEN is an Admin API token/,
      ],
    ];
    for (const [check, overrides, expected] of cases) {
      const broken = await report(overrides);
      expect(problems(broken, check), JSON.stringify(overrides)).toEqual([expect.stringMatching(expected)]);
      const finding = broken.checks.find((candidate) => candidate.id === check)!.findings[0]!;
      expect(finding.fix.length, check).toBeGreaterThan(20);
      expect(findingsOf(broken), JSON.stringify(overrides)).toBe(1);
    }
  });

  it("finds a stopped cron and a queue nobody consumes", async () => {
    const now = Date.now() + 60 * 60_000;
    const stopped = await healthReport({ db, env: goodProduction, origin: ORIGIN, production: true, now });
    expect(problems(stopped, "jobs")).toEqual([expect.stringMatching(/^The cron last ran 60 min ago/)]);
    await db
      .insert(workerHeartbeats)
      .values({ name: "queue-ping-sent", at: Date.now() + 1 })
      .onConflictDoUpdate({ target: workerHeartbeats.name, set: { at: Date.now() + 1 } });
    const unconsumed = await healthReport({ db, env: goodProduction, origin: ORIGIN, production: true, now: Date.now() + 5 * 60_000 });
    expect(problems(unconsumed, "jobs")).toEqual([expect.stringMatching(/^The job queue has not handled a ping sent 5 min ago/)]);
    await runCron();
  });

  it("finds migrations the database has not had", async () => {
    const last = await db.get<{ id: number; name: string }>(sql`select id, name from d1_migrations order by id desc limit 1`);
    await db.run(sql`delete from d1_migrations where id = ${last!.id}`);
    try {
      expect(problems(await report(), "migrations")).toEqual([`1 migration(s) are not applied to the database: ${last!.name}.`]);
    } finally {
      await db.run(sql`insert into d1_migrations (id, name) values (${last!.id}, ${last!.name})`);
    }
  });

  it("in development, leaves mail, passkeys and the store to their local stand-ins", async () => {
    const development = await healthReport({ db, env, origin: ORIGIN, production: false });
    expect(development.checks.flatMap((check) => check.findings)).toEqual([]);
    expect(development.checks.find((check) => check.id === "mail")!.state).toBe("off");
  });
});

describe("the doctor's door", () => {
  it("answers the report to the health token only", async () => {
    expect((await door("/api/health", {}, "wrong")).status).toBe(401);
    expect((await exports.default.fetch(new Request(`${ORIGIN}/api/health`))).status).toBe(401);
    const answered = await door();
    expect(answered.status).toBe(200);
    const body = (await answered.json()) as HealthReport & { findings: number };
    expect(body.checks.map((check) => check.id)).toEqual([
      "signing-key",
      "webhooks",
      "mail",
      "wallets",
      "chain",
      "passkeys",
      "discord",
      "jobs",
      "migrations",
      "settings",
    ]);
    expect(body.findings).toBe(0);
    expect(body.origin).toBe(ORIGIN);
  });

  it("pings the job queue, whose consumer notes it handled the ping", async () => {
    const sent = await door("/api/health/queue-ping", { method: "POST" });
    expect(sent.status).toBe(202);
    const { sentAt } = (await sent.json()) as { sentAt: number };
    await vi.waitFor(async () => {
      const handled = await db.select().from(workerHeartbeats).where(eq(workerHeartbeats.name, "queue")).get();
      expect(handled!.at).toBeGreaterThanOrEqual(sentAt);
    });
  });

  it("sends a test message and says whether the transport took it", async () => {
    const answered = await door("/api/health/mail", { method: "POST", body: JSON.stringify({ to: "owner@example.com" }) });
    expect(answered.status).toBe(200);
    const body = (await answered.json()) as HealthReport;
    expect(body.checks.find((check) => check.id === "mail")!.findings).toEqual([]);
    expect((await door("/api/health/mail", { method: "POST", body: JSON.stringify({ to: "not an address" }) })).status).toBe(400);
  });
});

describe("the Health page", () => {
  it("is the admin's, in the Settings group, and shows each check", async () => {
    const admin = await createAccount({ admin: true });
    const cookie = await signIn(admin, unique("ip"));
    const page = await call("/dashboard/health", { cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const label of ["Licence signing key", "Shopify order webhooks", "Cron and job queue", "Database migrations"])
      expect(html).toContain(label);
    expect(html).toMatch(/href="\/dashboard\/health"/);
    const support = await createAccount({ role: "support" });
    expect((await call("/dashboard/health", { cookie: await signIn(support, unique("ip")) })).status).toBe(403);
  });

  it("sends the admin a test e-mail and pings the queue from its buttons", async () => {
    const admin = await createAccount({ admin: true });
    const cookie = await signIn(admin, unique("ip"));
    const mailed = await call("/dashboard/health", { cookie, form: { intent: "test-mail" } });
    expect(mailed.status).toBe(200);
    expect(await mailed.text()).toContain("Test e-mail sent");
    const pinged = await call("/dashboard/health", { cookie, form: { intent: "ping-queue" } });
    expect(await pinged.text()).toContain("Ping sent");
  });
});
