// The blocklist through the Worker: staff block an e-mail address or domain, a PC, an address or
// range, a country and a Discord account on the Blocklists page (or a customer with what is known of
// them), and each block bites where it should: a paid order held for review (then released), BANNED
// for the PC whatever the key, sign-up, sign-in and licence checks refused for an address, Discord
// linking refused; each lifted by staff or at its expiry.
import { env, exports } from "cloudflare:workers";
import { and, desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ANSWER_REASON } from "~/lib/fraud";
import { BLOCKED_DISCORD, BLOCKED_HERE } from "~/server/accounts/blocked.server";
import { recordDiscordLink } from "~/server/accounts/discord-login.server";
import { addBlock } from "~/server/blocks/blocks.server";
import { validateLicence } from "~/server/licences/validation.server";
import { addCodes } from "~/server/keys/stock.server";
import { auditLog, blockListVersion, blocks, oauthAccounts, productCodes, users } from "~/server/platform/db/schema.server";
import {
  boughtKey,
  call,
  cookieFrom,
  createAccount,
  db,
  deliver,
  hwid,
  latestMail,
  nextId,
  ORIGIN,
  paidOrderPayload,
  signIn,
  type TestAccount,
  unique,
} from "../helpers";

let admin: { account: TestAccount; cookie: string } | undefined;
async function anAdmin() {
  if (!admin) {
    const account = await createAccount({ admin: true });
    admin = { account, cookie: await signIn(account, "192.0.2.200") };
  }
  return admin;
}

/** Staff block on the Blocklists page; the block's id. */
async function block(kind: string, value: string, expires = "") {
  const { cookie } = await anAdmin();
  const response = await call("/dashboard/blocklists", {
    form: { intent: "block", kind, value, reason: "Chargeback fraud", expires },
    cookie,
  });
  expect(response.status).toBe(200);
  const row = await db
    .select({ id: blocks.id })
    .from(blocks)
    .where(eq(blocks.kind, kind as "email"))
    .orderBy(desc(blocks.id))
    .get();
  return row!.id;
}

async function lift(blockId: number) {
  const { cookie } = await anAdmin();
  const response = await call("/dashboard/blocklists", { form: { intent: "lift", blockId: String(blockId) }, cookie });
  expect(response.status).toBe(200);
}

/** A licence check as a program sends it, from `ip` in `country`. */
async function check(key: string, pc: string, { ip = `203.0.113.${1 + Math.floor(Math.random() * 200)}`, country = "DE" } = {}) {
  const response = await exports.default.fetch(
    new Request(`${ORIGIN}/api/v1/licences/validate`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": ip, "CF-IPCountry": country },
      body: JSON.stringify({ key, hwid: pc, nonce: unique("nonce-0123456789") }),
    }),
  );
  expect(response.headers.get("Licence-Signature")).toBeTruthy();
  return (await response.json()) as { code: string; valid: boolean; reason?: string };
}

function signInFrom(account: TestAccount, ip: string, country = "DE") {
  return call("/auth", {
    form: { intent: "login", emailOrUsername: account.email, password: account.password },
    ip,
    headers: { "CF-IPCountry": country },
  });
}

describe("a blocked PC", () => {
  it("answers BANNED, signed and with a reason, for any key, until the block is lifted", async () => {
    const pc = hwid();
    const first = await boughtKey();
    const second = await boughtKey();
    expect((await check(first.key, pc)).code).toBe("VALID");
    const id = await block("hwid", pc);
    expect(await check(first.key, pc)).toMatchObject({ code: "BANNED", valid: false, reason: ANSWER_REASON.blockedPc });
    expect(await check(second.key, pc)).toMatchObject({ code: "BANNED", reason: ANSWER_REASON.blockedPc });
    // Another PC is not concerned (it is refused only as any second PC is).
    expect((await check(second.key, hwid())).code).toBe("VALID");
    await lift(id);
    expect((await check(first.key, pc)).code).toBe("VALID");
    expect(
      await db
        .select()
        .from(auditLog)
        .where(eq(auditLog.subject, `block:${id}`)),
    ).toHaveLength(2);
  });
});

describe("the licence check's blocklist", () => {
  // The check keeps the standing blocks between changes to the list: an expiry must lift a block
  // all the same, with no change to the list in between.
  it("lets a PC in once its block expires, with no change to the list since the check read it", async () => {
    const bought = await boughtKey();
    const pc = hwid();
    const { account } = await anAdmin();
    const now = Date.now();
    const staff = { viewer: { id: account.id, role: "admin" } as never, ip: null };
    expect((await addBlock(db, staff, { kind: "hwid", value: pc, reason: "test", expires: now + 60_000 }, now)).ok).toBe(true);
    const checkAt = async (at: number) => {
      const answer = await validateLicence(
        db,
        { key: bought.key, hwid: pc, nonce: unique("nonce-0123456789"), activate: true },
        { now: at, leaseMs: 0, recordCheck: () => undefined, admit: async () => true, address: "203.0.113.9", country: "DE" },
      );
      return answer.ok ? answer.value.code : answer.problem.code;
    };
    expect(await checkAt(now)).toBe("BANNED");
    expect(await checkAt(now + 59_000)).toBe("BANNED");
    expect(await checkAt(now + 61_000)).toBe("VALID");
  });

  // A database restored from a backup goes back to an older list and its version: an isolate that
  // kept a later list must not judge by it.
  it("judges by the restored list when the database goes back to a backup taken before a block", async () => {
    const bought = await boughtKey();
    const pc = hwid();
    const { account } = await anAdmin();
    const staff = { viewer: { id: account.id, role: "admin" } as never, ip: null };
    const check = async () => {
      const answer = await validateLicence(
        db,
        { key: bought.key, hwid: pc, nonce: unique("nonce-0123456789"), activate: true },
        { leaseMs: 0, recordCheck: () => undefined, admit: async () => true, address: "203.0.113.9", country: "DE" },
      );
      return answer.ok ? answer.value.code : answer.problem.code;
    };
    const before = await db.select().from(blockListVersion).get();
    const added = await addBlock(db, staff, { kind: "hwid", value: pc, reason: "test", expires: null });
    expect(await check()).toBe("BANNED");
    // The backup: the blocklist and its version as they were before the block.
    await db.delete(blocks).where(eq(blocks.id, added.ok ? added.value.id : 0));
    await db.update(blockListVersion).set({ version: before!.version });
    expect(await check()).toBe("VALID");
  });
});

describe("a blocked address, range or country", () => {
  it("refuses licence checks, sign-in and sign-up from a range, not from outside it", async () => {
    const bought = await boughtKey();
    const pc = hwid();
    const member = await createAccount();
    const octet = 1 + (nextId() % 250);
    const range = `198.18.${octet}.0/24`;
    const inside = `198.18.${octet}.77`;
    const outside = `198.19.${octet}.77`;
    await block("ip", range);
    expect(await check(bought.key, pc, { ip: inside })).toMatchObject({ code: "BANNED", reason: ANSWER_REASON.blockedNetwork });
    expect((await check(bought.key, pc, { ip: outside })).code).toBe("VALID");

    const refused = await signInFrom(member, inside);
    expect(refused.status).toBe(403);
    expect(cookieFrom(refused, "__Host-session")).toBeNull();
    expect(await refused.text()).toContain(BLOCKED_HERE);
    expect((await signInFrom(member, outside)).status).toBe(302);

    const email = `${unique("new")}@example.test`;
    const signUp = await call("/auth", {
      form: { intent: "signup", username: unique("nu"), email, password: "correct-horse-1" },
      ip: inside,
    });
    expect(signUp.status).toBe(403);
    expect(await db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
  });

  it("refuses an IPv6 address inside a blocked /48", async () => {
    const bought = await boughtKey();
    const group = (nextId() % 0xffff).toString(16);
    await block("ip", `2001:db8:${group}::/48`);
    expect((await check(bought.key, hwid(), { ip: `2001:db8:${group}:1::9` })).code).toBe("BANNED");
    expect((await check(bought.key, hwid(), { ip: `2001:db8:${group}1::9` })).code).not.toBe("BANNED");
  });

  it("refuses a country until the block expires", async () => {
    const bought = await boughtKey();
    const pc = hwid();
    const member = await createAccount();
    // Two-letter codes nobody else in the run blocks.
    const country = "Q" + String.fromCharCode(65 + (nextId() % 26));
    await block("country", country);
    expect(await check(bought.key, pc, { country })).toMatchObject({ code: "BANNED", reason: ANSWER_REASON.blockedNetwork });
    expect((await signInFrom(member, "192.0.2.10", country)).status).toBe(403);
    expect((await check(bought.key, pc, { country: "FR" })).code).toBe("VALID");

    // A block that expired a moment ago stands no more: made an hour ago, for an hour less a second.
    const expiring = await createAccount();
    const other = "Z" + String.fromCharCode(65 + (nextId() % 26));
    const { account } = await anAdmin();
    const now = Date.now();
    expect(
      (
        await addBlock(
          db,
          { viewer: { id: account.id, role: "admin" } as never, ip: null },
          { kind: "country", value: other, reason: "test", expires: now - 1000 },
          now - 3600_000,
        )
      ).ok,
    ).toBe(true);
    expect((await signInFrom(expiring, "192.0.2.11", other)).status).toBe(302);
    expect((await check(bought.key, pc, { country: other })).code).toBe("VALID");
  });
});

describe("a blocked buyer", () => {
  async function stockedOrder(email: string) {
    const variant = nextId();
    await addCodes(db, { id: `gid://shopify/ProductVariant/${variant}`, title: "Vertex Rust - 1 Week" }, `LIC-${variant}`);
    return paidOrderPayload({ variant, variantTitle: "1 Week", price: "29.99" }, { email });
  }
  const keysOf = (orderId: number) =>
    db
      .select()
      .from(productCodes)
      .where(eq(productCodes.orderId, String(orderId)));

  it("has a paid order held for review instead of keyed, with its reasons on the order page, until staff release it", async () => {
    const email = `${unique("fraud")}@example.test`;
    await block("email", email);
    const order = await stockedOrder(email);
    await deliver("orders/paid", order);
    expect(await keysOf(order.id)).toHaveLength(0);
    expect(await latestMail(email, "key")).toBeUndefined();
    const { cookie } = await anAdmin();
    const page = await (await call(`/dashboard/orders/shopify/${order.id}`, { cookie })).text();
    expect(page).toContain("Held for review");
    expect(page).toContain("The buyer&#x27;s e-mail address is blocked");

    // Shopify's next delivery of the same order hands nothing out either.
    await deliver("orders/updated", { ...order, updated_at: new Date().toISOString() });
    expect(await keysOf(order.id)).toHaveLength(0);

    const released = await call(`/dashboard/orders/shopify/${order.id}`, { form: { intent: "release" }, cookie });
    expect(released.status).toBe(200);
    expect(await keysOf(order.id)).toHaveLength(1);
    expect(await latestMail(email, "key")).toBeDefined();
    expect((await call(`/dashboard/orders/shopify/${order.id}`, { form: { intent: "release" }, cookie })).status).toBe(409);
  });

  it("is held by a blocked domain too, and an order from elsewhere is keyed", async () => {
    const domain = `${unique("d")}.example`;
    await block("domain", domain);
    const held = await stockedOrder(`someone@${domain}`);
    await deliver("orders/paid", held);
    expect(await keysOf(held.id)).toHaveLength(0);
    const fine = await stockedOrder(`someone@other-${domain}`);
    await deliver("orders/paid", fine);
    expect(await keysOf(fine.id)).toHaveLength(1);
  });

  it("is blocked with their PCs, addresses and e-mails from their page in one confirmation", async () => {
    const member = await createAccount();
    await signIn(member, "192.0.2.77");
    const bought = await boughtKey("1 Week", member.email);
    const pc = hwid();
    expect((await check(bought.key, pc)).code).toBe("VALID");
    const { cookie } = await anAdmin();
    const page = await (await call(`/dashboard/customers/${member.id}`, { cookie })).text();
    expect(page).toContain(pc);
    expect(page).toContain("192.0.2.77");
    const response = await call(`/dashboard/customers/${member.id}`, {
      form: { intent: "block-customer", reason: "Chargebacks", expires: "", "take-0": `hwid:${pc}`, "take-1": "ip:192.0.2.77" },
      cookie,
    });
    expect(response.status).toBe(200);
    expect((await check(bought.key, pc)).code).toBe("BANNED");
    expect((await signInFrom(member, "192.0.2.78")).status).toBe(403);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "customer.block"), eq(auditLog.subject, member.id))),
    ).toHaveLength(1);
  });
});

describe("a blocked Discord account", () => {
  it("cannot be linked", async () => {
    const member = await createAccount();
    const discordId = String(1_400_000_000_000_000_000n + BigInt(nextId()));
    await block("discord", discordId);
    const deps = { db, mail: env, waitUntil: () => {} };
    const refused = await recordDiscordLink(deps, member.id, { id: discordId, username: "someone" }, null);
    expect(refused).toMatchObject({ ok: false, problem: { code: "forbidden", message: BLOCKED_DISCORD } });
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.providerUserId, discordId))).toHaveLength(0);
    const other = String(1_400_000_000_000_000_000n + BigInt(nextId()));
    expect((await recordDiscordLink(deps, member.id, { id: other, username: "someone" }, null)).ok).toBe(true);
  });
});
