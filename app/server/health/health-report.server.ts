// The live shop's health, seen from inside (decision 098): is each setting the shop needs there and
// right, and does the machinery behind it answer — the licence signing key, Shopify's webhooks, mail,
// the wallets, the explorers and the exchange rate, passkeys, Discord, the cron and the job queue,
// the database's migrations. Each finding says what is wrong and what to do, in the words the
// settings' own checks use (platform/settings.server.ts and the modules that read each setting).
// The back office's Health page shows it; the doctor (`npm run doctor`) fetches it and adds what
// only the outside can see.
import { and, count, desc, eq, gt, isNotNull, max, sql } from "drizzle-orm";
import * as v from "valibot";
import migrationNames from "virtual:d1-migrations";
import { CRYPTO_COINS } from "~/lib/crypto-orders";
import type { CheckId, Finding, HealthCheck, HealthReport } from "~/lib/health";
import { relyingParty } from "../accounts/passkey-ceremonies.server";
import type { Caller } from "../platform/caller.server";
import { cryptoSetup } from "../crypto/crypto-setup.server";
import { isDemoWallet, parseAccountKey, receiveAddress } from "../crypto/wallet.server";
import { checkGuildHealth } from "../discord/reconcile.server";
import { discordSetup, roleSettings } from "../discord/role-setup.server";
import { licenceSigner, signingKeySchema } from "../licences/signing.server";
import type { Db } from "../platform/db/client.server";
import { auditLog, failedJobs, mailOutbox, webhookDeliveries } from "../platform/db/schema.server";
import { heartbeats } from "../platform/heartbeats.server";
import { deliverMail, enqueueMail } from "../platform/mail.server";
import {
  discordBotTokenSchema,
  mailApiUrlSchema,
  mailFromSchema,
  mailKeySchema,
  settingProblem,
  storefrontTokenSchema,
  storeDomainSchema,
  totpKeySchema,
  webhookSecretSchema,
} from "../platform/settings.server";

export interface HealthDeps {
  db: Db;
  env: Env;
  /** The shop's address as the asker reached it. */
  origin: string;
  /** Production: settings development may leave empty (mail, passkeys, the store) are findings. */
  production: boolean;
  now?: number;
}

/** The cron runs every 5 minutes; three missed runs is a stopped cron. */
const CRON_LATE_MS = 15 * 60_000;
/** A ping the queue has not handled after this long: nobody consumes the queue. */
const QUEUE_LATE_MS = 2 * 60_000;
/** Outside services get this long to answer. */
const OUTSIDE_TIMEOUT_MS = 8_000;
const WEEK_MS = 7 * 24 * 60 * 60_000;

const SECRET_FIX = (name: string) => `Set it with \`wrangler secret put ${name}\`, or run \`npm run setup:production\`, which asks for it.`;

function result(id: CheckId, label: string, findings: Finding[], facts: string[] = [], off = false): HealthCheck {
  return { id, label, state: findings.length > 0 ? "problem" : off ? "off" : "ok", facts, findings };
}

async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${OUTSIDE_TIMEOUT_MS / 1000} s`)), OUTSIDE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const minutesAgo = (at: number, now: number) => Math.max(0, Math.round((now - at) / 60_000));

async function signingKeyCheck(env: Env): Promise<{ check: HealthCheck; publicKey: string | null }> {
  const checked = await v.safeParseAsync(signingKeySchema, env.LICENCE_SIGNING_KEY ?? "");
  if (!checked.success) {
    const fix =
      "Run `npm run setup:production`, which makes one, or make your own: `openssl genpkey -algorithm ed25519 -outform DER | base64 -w0 | wrangler secret put LICENCE_SIGNING_KEY`; then build its public half into the program.";
    return { check: result("signing-key", "Licence signing key", [{ problem: checked.issues[0].message, fix }]), publicKey: null };
  }
  const signer = await licenceSigner(env.LICENCE_SIGNING_KEY);
  const publicKey = signer.ok ? signer.value.publicKey : null;
  return {
    check: result(
      "signing-key",
      "Licence signing key",
      [],
      [`Public key ${publicKey}, served at /api/v1/licences/signing-key: the program's build must carry this one.`],
    ),
    publicKey,
  };
}

async function webhookCheck(db: Db, env: Env, now: number): Promise<HealthCheck> {
  const findings: Finding[] = [];
  const facts: string[] = [];
  const problem = settingProblem(webhookSecretSchema, env.SHOPIFY_WEBHOOK_SECRET);
  if (problem)
    findings.push({
      problem,
      fix: `Copy the signing secret from Shopify (Settings → Notifications → Webhooks). ${SECRET_FIX("SHOPIFY_WEBHOOK_SECRET")}`,
    });
  const since = now - WEEK_MS;
  const [outcomes, rejected] = await Promise.all([
    db
      .select({ outcome: webhookDeliveries.outcome, n: count(), last: max(webhookDeliveries.receivedAt) })
      .from(webhookDeliveries)
      .where(gt(webhookDeliveries.receivedAt, since))
      .groupBy(webhookDeliveries.outcome),
    db
      .select({ n: count(), last: max(auditLog.createdAt) })
      .from(auditLog)
      .where(
        and(eq(auditLog.action, "webhook.rejected"), gt(auditLog.createdAt, since), sql`${auditLog.detail} like '%Invalid signature%'`),
      )
      .get(),
  ]);
  const accepted = outcomes.reduce((sum, row) => sum + row.n, 0);
  const lastAccepted = Math.max(0, ...outcomes.map((row) => row.last ?? 0));
  facts.push(
    accepted === 0
      ? "No order webhook arrived in the last 7 days (Shopify's test notification counts)."
      : `${accepted} deliveries verified in the last 7 days (${outcomes.map((row) => `${row.n} ${row.outcome}`).join(", ")}), the last ${minutesAgo(lastAccepted, now)} min ago.`,
  );
  if (rejected && rejected.n > 0 && (rejected.last ?? 0) > lastAccepted) {
    findings.push({
      problem: `The latest webhook deliveries were refused: their signature does not match SHOPIFY_WEBHOOK_SECRET (${rejected.n} refused in 7 days).`,
      fix: "Copy the signing secret Shopify shows under Settings → Notifications → Webhooks into SHOPIFY_WEBHOOK_SECRET again, then send a test notification.",
    });
  }
  return result("webhooks", "Shopify order webhooks", findings, facts);
}

async function mailCheck(deps: HealthDeps, now: number, testMailTo?: string): Promise<HealthCheck> {
  const { db, env, production } = deps;
  const findings: Finding[] = [];
  const facts: string[] = [];
  if (env.MAIL_TRANSPORT === "none") {
    if (!production) return result("mail", "E-mail", [], ["MAIL_TRANSPORT is none: mail stays in the outbox (/dev/mail)."], true);
    findings.push({
      problem: 'MAIL_TRANSPORT is "none": the shop writes its e-mails (keys, sign-in links) to its outbox and sends none.',
      fix: 'Set MAIL_TRANSPORT = "http", MAIL_API_URL and MAIL_FROM in wrangler.toml and the MAIL_API_KEY secret (`npm run setup:production` asks for them).',
    });
    return result("mail", "E-mail", findings);
  }
  if (env.MAIL_TRANSPORT !== "http")
    findings.push({ problem: `MAIL_TRANSPORT is "${env.MAIL_TRANSPORT}"`, fix: 'Set MAIL_TRANSPORT = "http" in wrangler.toml.' });
  for (const [name, schema, value] of [
    ["MAIL_API_URL", mailApiUrlSchema, env.MAIL_API_URL],
    ["MAIL_FROM", mailFromSchema, env.MAIL_FROM],
  ] as const) {
    const problem = settingProblem(schema, value);
    if (problem) findings.push({ problem, fix: `Set ${name} in wrangler.toml's [vars] and deploy again.` });
  }
  const keyProblem = settingProblem(mailKeySchema, env.MAIL_API_KEY);
  if (keyProblem) findings.push({ problem: keyProblem, fix: SECRET_FIX("MAIL_API_KEY") });
  const lastSent = await db
    .select({ at: max(mailOutbox.sentAt) })
    .from(mailOutbox)
    .get();
  if (lastSent?.at) facts.push(`Last e-mail delivered ${minutesAgo(lastSent.at, now)} min ago.`);
  const lastAttempt = await db
    .select({ status: mailOutbox.status, error: mailOutbox.lastError, at: mailOutbox.createdAt })
    .from(mailOutbox)
    .where(isNotNull(mailOutbox.lastError))
    .orderBy(desc(mailOutbox.id))
    .get();
  if (lastAttempt && (!lastSent?.at || lastAttempt.at > lastSent.at)) {
    findings.push({
      problem: `The latest e-mails could not be delivered: ${lastAttempt.error}`,
      fix: "Check MAIL_API_KEY and that MAIL_FROM's domain is verified with the mail provider; the outbox retries on its own once that is right.",
    });
  }
  if (testMailTo && findings.length === 0) {
    const id = await enqueueMail(db, {
      to: testMailTo,
      subject: "Test message from the shop's health check",
      text: "The shop's health check sent this message to show that e-mail leaves the shop. Nothing needs doing.",
      dedupeKey: `health-test:${now}:${testMailTo}`,
    });
    const outcome = id === null ? "skipped" : await deliverMail(db, env, id, { now });
    if (outcome === "sent") facts.push(`A test message to ${testMailTo} was accepted by the mail API.`);
    else {
      const row =
        id === null ? undefined : await db.select({ error: mailOutbox.lastError }).from(mailOutbox).where(eq(mailOutbox.id, id)).get();
      findings.push({
        problem: `The mail API refused the test message to ${testMailTo}: ${row?.error ?? outcome}`,
        fix: "Check MAIL_API_KEY (a current key of the mail provider) and that MAIL_FROM's domain is verified there.",
      });
    }
  }
  return result("mail", "E-mail", findings, facts);
}

function walletCheck(deps: HealthDeps): HealthCheck {
  const { env, db, production } = deps;
  const findings: Finding[] = [];
  const facts: string[] = [];
  let configured = 0;
  for (const coin of CRYPTO_COINS) {
    const name = `CRYPTO_${coin}_XPUB` as const;
    const value = env[name]?.trim() ?? "";
    if (!value) {
      facts.push(`${coin}: not taken (no ${name}).`);
      continue;
    }
    configured += 1;
    const parsed = parseAccountKey(coin, value);
    if (!parsed.ok) {
      findings.push({
        problem: parsed.problem.message,
        fix: `Export the account's public key (zpub) from your ${coin} wallet. ${SECRET_FIX(name)}`,
      });
      continue;
    }
    if (production && isDemoWallet(parsed.value)) {
      findings.push({
        problem: `${name} is a public demo wallet; set your own wallet's key`,
        fix: `Anyone can spend from the demo wallet: export your own wallet's zpub. ${SECRET_FIX(name)}`,
      });
      continue;
    }
    facts.push(`${coin}: the first receive address is ${receiveAddress(parsed.value, 0)}; check that your wallet shows the same.`);
  }
  // One key for both coins would watch Litecoin payments where the Litecoin wallet never looks.
  const [btc, ltc] = CRYPTO_COINS.map((coin) => parseAccountKey(coin, env[`CRYPTO_${coin}_XPUB`]?.trim() ?? ""));
  if (btc?.ok && ltc?.ok && btc.value.id === ltc.value.id) {
    findings.push({
      problem: "CRYPTO_LTC_XPUB is the same key as CRYPTO_BTC_XPUB",
      fix: `Export your Litecoin wallet's own key. ${SECRET_FIX("CRYPTO_LTC_XPUB")}`,
    });
  }
  // The invoice rules (the wallets' own problems are above, in their words).
  for (const problem of cryptoSetup(env, db).problems.filter((text) => !/^(BTC|LTC) payments are off/.test(text))) {
    findings.push({ problem, fix: "Correct it in wrangler.toml's [vars] and deploy again." });
  }
  return result("wallets", "Crypto wallets", findings, facts, configured === 0);
}

async function chainCheck(deps: HealthDeps): Promise<HealthCheck> {
  const setup = cryptoSetup(deps.env, deps.db);
  if (setup.coins.length === 0)
    return result("chain", "Block explorers and exchange rate", [], ["No wallet is set: nothing to watch."], true);
  const findings: Finding[] = [];
  const facts: string[] = [];
  await Promise.all(
    setup.coins.map(async (coin) => {
      const simulated = setup.simulatedCoins.includes(coin);
      try {
        const height = await within(setup.chain(coin).tipHeight(), `The ${coin} explorer`);
        facts.push(`${coin}: ${simulated ? "the simulated chain" : "the explorer"} is at block ${height}.`);
      } catch (error) {
        findings.push({
          problem: `The ${coin} explorer (${deps.env[`CRYPTO_${coin}_EXPLORER_URL`] || "the public default"}) cannot be reached: ${messageOf(error)}`,
          fix: `Set CRYPTO_${coin}_EXPLORER_URL to an Esplora API that answers (https://mempool.space/api, https://litecoinspace.org/api, or your own), or leave it empty for the public default.`,
        });
      }
      try {
        const cents = await within(setup.rates.usdCentsPerCoin(coin), "The exchange rate source");
        facts.push(`${coin}: ${setup.rates.demo ? "the demo rate" : "the rate source"} gives ${(cents / 100).toFixed(2)} USD.`);
      } catch (error) {
        findings.push({
          problem: `The exchange rate for ${coin} cannot be had (${deps.env.CRYPTO_RATE_URL || "the public default"}): ${messageOf(error)}`,
          fix: "Set CRYPTO_RATE_URL to a spot-price URL in Coinbase's answer shape ({coin} for the coin), or leave it empty for Coinbase's public one.",
        });
      }
    }),
  );
  return result("chain", "Block explorers and exchange rate", findings, facts.sort());
}

function passkeyCheck(deps: HealthDeps): HealthCheck {
  const { env, origin, production } = deps;
  const configured = env.WEBAUTHN_ORIGIN?.trim() || (env.WEBAUTHN_RP_ID?.trim() ? `https://${env.WEBAUTHN_RP_ID.trim()}` : "");
  const host = new URL(origin).hostname;
  const fix = `Set WEBAUTHN_RP_ID = "${host}" and WEBAUTHN_ORIGIN = "${origin}" in wrangler.toml and deploy again (changing it later strands the passkeys made before).`;
  if (!configured) {
    return production
      ? result("passkeys", "Passkeys", [{ problem: "Passkeys are off: WEBAUTHN_RP_ID and WEBAUTHN_ORIGIN are not set.", fix }])
      : result("passkeys", "Passkeys", [], ["Not set: development uses the address the browser opened."], true);
  }
  const caller = { origin } as Caller;
  const party = relyingParty(env, caller, production);
  if (!party.ok)
    return result("passkeys", "Passkeys", [
      { problem: `WEBAUTHN_RP_ID and WEBAUTHN_ORIGIN do not fit together: ${party.problem.message}`, fix },
    ]);
  if (party.value.origin !== origin) {
    return result("passkeys", "Passkeys", [
      {
        problem: `WEBAUTHN_ORIGIN is ${party.value.origin}, but the shop answers at ${origin}: passkeys cannot be made or used here.`,
        fix,
      },
    ]);
  }
  return result("passkeys", "Passkeys", [], [`Bound to ${party.value.id}, used at ${party.value.origin}.`]);
}

async function discordCheck(deps: HealthDeps, now: number): Promise<HealthCheck> {
  const { env, db } = deps;
  const token = env.DISCORD_BOT_TOKEN?.trim() ?? "";
  if (!token) return result("discord", "Discord roles", [], ["No bot token: roles are not handed out."], true);
  const fix = "Copy the bot's token from the Developer Portal (Bot → Reset Token). " + SECRET_FIX("DISCORD_BOT_TOKEN");
  const problem = settingProblem(discordBotTokenSchema, token);
  if (problem) return result("discord", "Discord roles", [{ problem, fix }]);
  const setup = discordSetup(env, db);
  try {
    const me = await within(setup.api!.me(), "Discord");
    if (!me.ok) {
      const problem =
        me.status === 401
          ? "Discord refused the bot token (401): set DISCORD_BOT_TOKEN to the bot's current token from the Developer Portal."
          : `Discord could not be asked about the bot: ${me.message}.`;
      return result("discord", "Discord roles", [{ problem, fix }]);
    }
    const settings = await roleSettings(db);
    if (!settings.guildId)
      return result("discord", "Discord roles", [
        {
          problem: `The bot "${me.value.username}" has no server to hand roles out in.`,
          fix: "Choose the server on the back office's Discord page.",
        },
      ]);
    const health = await within(checkGuildHealth({ db, setup }, now), "Discord");
    const findings = (health?.problems ?? []).map((text) => ({
      problem: text,
      fix: "See the back office's Discord page, which checks again after each change.",
    }));
    return result("discord", "Discord roles", findings, [`The bot "${me.value.username}" is in the server ${settings.guildId}.`]);
  } catch (error) {
    return result("discord", "Discord roles", [
      {
        problem: `Discord could not be reached: ${messageOf(error)}`,
        fix: "Check DISCORD_API_URL (https://discord.com/api/v10 unless you route through your own egress).",
      },
    ]);
  }
}

async function jobsCheck(db: Db, now: number): Promise<HealthCheck> {
  const beats = await heartbeats(db);
  const findings: Finding[] = [];
  const facts: string[] = [];
  if (beats.cron === undefined) {
    findings.push({
      problem: "The cron has never run: mail retries, expiries and the queue's backstop do not happen.",
      fix: 'Check the Worker\'s cron triggers (`[triggers] crons = ["*/5 * * * *", "0 * * * *"]` in wrangler.toml, then deploy) and that the Worker\'s Settings → Triggers list them.',
    });
  } else if (now - beats.cron > CRON_LATE_MS) {
    findings.push({
      problem: `The cron last ran ${minutesAgo(beats.cron, now)} min ago; it runs every 5 minutes.`,
      fix: "Check the Worker's Settings → Triggers in the Cloudflare dashboard, and its logs for errors in scheduled().",
    });
  } else facts.push(`The cron last ran ${minutesAgo(beats.cron, now)} min ago.`);
  const sent = beats["queue-ping-sent"];
  const handled = beats.queue;
  if (sent !== undefined && (handled === undefined || handled < sent) && now - sent > QUEUE_LATE_MS) {
    findings.push({
      problem: `The job queue has not handled a ping sent ${minutesAgo(sent, now)} min ago: keys for paid orders wait on it.`,
      fix: "Check that the queues keyshop-jobs and keyshop-jobs-failed exist (`wrangler queues list`) and that this Worker is their consumer (`npm run setup:production` creates them).",
    });
  } else if (handled !== undefined) facts.push(`The job queue handled a ping ${minutesAgo(handled, now)} min ago.`);
  else facts.push("The job queue has not been pinged yet (the cron pings it every 5 minutes).");
  const dead = await db.select({ n: count() }).from(failedJobs).where(isNotNull(failedJobs.deadAt)).get();
  if (dead && dead.n > 0) {
    findings.push({
      problem: `${dead.n} background job(s) failed for good.`,
      fix: "Open Manage Codes → Failed jobs, read each error and retry it once its cause is fixed.",
    });
  }
  return result("jobs", "Cron and job queue", findings, facts);
}

async function migrationCheck(db: Db): Promise<HealthCheck> {
  let applied: string[];
  try {
    applied = (await db.all<{ name: string }>(sql`select name from d1_migrations`)).map((row) => row.name);
  } catch {
    applied = [];
  }
  const pending = migrationNames.filter((name) => !applied.includes(name));
  if (pending.length === 0)
    return result("migrations", "Database migrations", [], [`All ${migrationNames.length} migrations are applied.`]);
  return result("migrations", "Database migrations", [
    {
      problem: `${pending.length} migration(s) are not applied to the database: ${pending.join(", ")}.`,
      fix: "Apply them: `npm run setup:production` (or `wrangler d1 migrations apply DB --remote`). Take a backup first (`npm run backup`).",
    },
  ]);
}

function settingsCheck(deps: HealthDeps): HealthCheck {
  const { env, production } = deps;
  const findings: Finding[] = [];
  const totp = settingProblem(totpKeySchema, env.TOTP_ENCRYPTION_KEY);
  if (totp)
    findings.push({
      problem: `${totp}: members cannot turn two-factor on or sign in with it.`,
      fix: `Make one with \`openssl rand -base64 32\`. ${SECRET_FIX("TOTP_ENCRYPTION_KEY")} (A new key strands the authenticators set up with the old one.)`,
    });
  const token = env.SHOPIFY_STOREFRONT_TOKEN?.trim() ?? "";
  if (token) {
    const problem = settingProblem(storefrontTokenSchema, token);
    if (problem) findings.push({ problem, fix: SECRET_FIX("SHOPIFY_STOREFRONT_TOKEN") });
    if (!env.SHOPIFY_STOREFRONT_URL?.trim()) {
      const domain = settingProblem(storeDomainSchema, env.SHOPIFY_STORE_DOMAIN);
      if (domain) findings.push({ problem: domain, fix: "Set SHOPIFY_STORE_DOMAIN in wrangler.toml's [vars] and deploy again." });
    }
  } else if (production) {
    findings.push({
      problem: "SHOPIFY_STOREFRONT_TOKEN is not set: the shop shows its demo catalogue instead of your store's products.",
      fix: `Create a Storefront API token (Shopify → Headless, or a custom app). ${SECRET_FIX("SHOPIFY_STOREFRONT_TOKEN")}`,
    });
  }
  return result("settings", "Other settings", findings);
}

/** Everything the shop can say about its own health. `testMailTo`: also send a test message there. */
export async function healthReport(deps: HealthDeps, options: { testMailTo?: string } = {}): Promise<HealthReport> {
  const now = deps.now ?? Date.now();
  const [signing, webhooks, mail, chain, discord, jobs, migrations] = await Promise.all([
    signingKeyCheck(deps.env),
    webhookCheck(deps.db, deps.env, now),
    mailCheck(deps, now, options.testMailTo),
    chainCheck(deps),
    discordCheck(deps, now),
    jobsCheck(deps.db, now),
    migrationCheck(deps.db),
  ]);
  return {
    checkedAt: now,
    origin: deps.origin,
    publicKey: signing.publicKey,
    checks: [signing.check, webhooks, mail, walletCheck(deps), chain, passkeyCheck(deps), discord, jobs, migrations, settingsCheck(deps)],
  };
}
