// Payment disputes through the Worker: Shopify's signed disputes/create and disputes/update bodies
// (the REST Admin API's Dispute resource) suspend the order's keys while open, restore them when
// won, revoke them when lost; in any order, replayed, each step audited once, with the licence
// answer, the member's Discord roles and the affiliate's commission checked.
import { env, exports } from "cloudflare:workers";
import { and, eq, like } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { HOLD_MS } from "~/lib/affiliates";
import { ANSWER_REASON } from "~/lib/fraud";
import { recordCommission } from "~/server/affiliates/ledger.server";
import { joinGuild, setBotRoleLow, simulatedGuild } from "~/server/discord/dev-discord.server";
import { addRoleRule, discordSetup, saveGuild } from "~/server/discord/role-setup.server";
import { SIMULATED_GUILD_ID, SIMULATED_ROLES } from "~/server/discord/simulated-discord.server";
import { addCodes } from "~/server/keys/stock.server";
import {
  affiliateLedger,
  affiliates,
  auditLog,
  discordRoleRules,
  oauthAccounts,
  resellerAccounts,
  resellerLedger,
} from "~/server/platform/db/schema.server";
import {
  boughtKey,
  call,
  createAccount,
  db,
  deliver,
  hwid,
  latestMail,
  disputeBody,
  nextId,
  ORIGIN,
  paidOrderPayload,
  signIn,
  unique,
  validate,
} from "../helpers";

const { subscriber: SUBSCRIBER } = SIMULATED_ROLES;

beforeAll(async () => {
  const staff = await createAccount({ admin: true });
  await db.delete(discordRoleRules);
  await saveGuild(db, staff.id, SIMULATED_GUILD_ID);
  expect((await addRoleRule({ db, setup: discordSetup(env, db) }, staff.id, { grant: "any", roleId: SUBSCRIBER })).ok).toBe(true);
  await setBotRoleLow(db, false);
}, 30_000);

/** A member with a linked Discord account in the guild, who bought a key and activated it on a PC. */
async function activatedPurchase() {
  const account = await createAccount();
  const discordId = String(1_300_000_000_000_000_000n + BigInt(nextId()));
  await db.insert(oauthAccounts).values({
    provider: "discord",
    providerUserId: discordId,
    providerUsername: account.username,
    userId: account.id,
    createdAt: Date.now(),
  });
  await joinGuild(db, discordId, account.username);
  const bought = await boughtKey("1 Week", account.email);
  const pc = hwid();
  const check = () => validate({ key: bought.key, hwid: pc, nonce: unique("nonce-0123456789") });
  expect((await check()).json.code).toBe("VALID");
  await expectRoles(discordId, [SUBSCRIBER]);
  return { ...bought, account, discordId, check, pc };
}

async function expectRoles(discordId: string, roles: string[]) {
  await vi.waitFor(
    async () => {
      const member = (await simulatedGuild(db)).members.find((m) => m.userId === discordId);
      expect(member?.roles.toSorted()).toEqual(roles);
    },
    { timeout: 15_000, interval: 50 },
  );
}

const auditsOf = (orderId: number | string, action: string) =>
  db
    .select({ detail: auditLog.detail })
    .from(auditLog)
    .where(and(eq(auditLog.subject, `shopify:${orderId}`), eq(auditLog.action, action)))
    .all();

describe("a dispute opened, won and lost", () => {
  it("suspends the keys with a reason while open, takes the Discord role, and restores both when won, each step audited once", async () => {
    const bought = await activatedPurchase();
    const opened = disputeBody(bought.orderId, "needs_response");
    await deliver("disputes/create", opened);

    const suspended = await bought.check();
    expect(suspended.json).toMatchObject({ valid: false, code: "SUSPENDED", reason: ANSWER_REASON.dispute, lease: null });
    await expectRoles(bought.discordId, []);
    // The member sees why on their Subscriptions page.
    const hub = await (await call("/dashboard/subscriptions", { cookie: await signIn(bought.account, "192.0.2.232") })).text();
    expect(hub).toContain(ANSWER_REASON.dispute);

    // Shopify retries and sends the update: nothing is done twice.
    await deliver("disputes/create", opened);
    await deliver("disputes/update", { ...opened, status: "under_review" });
    expect(await auditsOf(bought.orderId, "dispute.opened")).toHaveLength(1);
    expect(await auditsOf(bought.orderId, "dispute.updated")).toHaveLength(1);
    expect(await auditsOf(bought.orderId, "dispute.licences-suspended")).toHaveLength(1);

    await deliver("disputes/update", { ...opened, status: "won" });
    expect((await bought.check()).json).toMatchObject({ valid: true, code: "VALID" });
    expect((await bought.check()).json.reason).toBeUndefined();
    await expectRoles(bought.discordId, [SUBSCRIBER]);
    expect(await auditsOf(bought.orderId, "dispute.won")).toHaveLength(1);
    expect(await auditsOf(bought.orderId, "dispute.licences-restored")).toHaveLength(1);

    // A replay of the opened body after the win changes nothing.
    await deliver("disputes/create", opened);
    expect((await bought.check()).json.code).toBe("VALID");
    expect(await auditsOf(bought.orderId, "dispute.licences-suspended")).toHaveLength(1);
  });

  it("revokes the keys as a refund does when lost, tells the buyer, and stays revoked whatever arrives later", async () => {
    const bought = await activatedPurchase();
    const opened = disputeBody(bought.orderId, "needs_response");
    await deliver("disputes/create", opened);
    await deliver("disputes/update", { ...opened, status: "lost" });
    expect((await bought.check()).json).toMatchObject({ valid: false, code: "REVOKED" });
    await expectRoles(bought.discordId, []);
    expect(await auditsOf(bought.orderId, "dispute.lost")).toHaveLength(1);
    expect(await auditsOf(bought.orderId, "dispute.keys-revoked")).toHaveLength(1);
    expect((await latestMail(bought.email, "revoked"))?.textBody).toContain("disputed");

    await deliver("disputes/update", { ...opened, status: "won" });
    await deliver("disputes/create", opened);
    expect((await bought.check()).json.code).toBe("REVOKED");
    expect(await auditsOf(bought.orderId, "dispute.keys-revoked")).toHaveLength(1);
  });
});

describe("out of order", () => {
  it("keeps a key working when the win arrives before the opening", async () => {
    const bought = await activatedPurchase();
    const opened = disputeBody(bought.orderId, "needs_response");
    await deliver("disputes/update", { ...opened, status: "won" });
    await deliver("disputes/create", opened);
    expect((await bought.check()).json.code).toBe("VALID");
    // Settled as won at once; the opening that came late neither reopens nor suspends it.
    expect(await auditsOf(bought.orderId, "dispute.won")).toHaveLength(1);
    expect(await auditsOf(bought.orderId, "dispute.opened")).toHaveLength(0);
    expect(await auditsOf(bought.orderId, "dispute.licences-suspended")).toHaveLength(0);
  });

  it("revokes when the loss arrives before the opening", async () => {
    const bought = await activatedPurchase();
    const opened = disputeBody(bought.orderId, "needs_response");
    await deliver("disputes/update", { ...opened, status: "lost" });
    await deliver("disputes/create", opened);
    expect((await bought.check()).json.code).toBe("REVOKED");
  });

  it("suspends keys handed out after the dispute arrived (the dispute overtook the paid order)", async () => {
    const variant = nextId();
    const code = `LIC-${variant}`;
    await addCodes(db, { id: `gid://shopify/ProductVariant/${variant}`, title: "Vertex Rust - 1 Week" }, code);
    const order = paidOrderPayload({ variant, variantTitle: "1 Week", price: "29.99" });
    await deliver("disputes/create", disputeBody(order.id, "needs_response"));
    await deliver("orders/paid", order);
    const answer = await validate({ key: code, hwid: hwid(), nonce: unique("nonce-0123456789") });
    expect(answer.json).toMatchObject({ code: "SUSPENDED", reason: ANSWER_REASON.dispute });
  });
});

describe("the affiliate's commission", () => {
  async function referredOrder() {
    const creator = await createAccount();
    const code = `Dp_${unique("").slice(-12)}`;
    await db.insert(affiliates).values({
      userId: creator.id,
      code,
      status: "approved",
      channel: "youtube.com/@creator",
      audience: "Rust players",
      pitch: "Weekly reviews",
      commissionRate: 20,
      discountRate: 0,
      appliedAt: Date.now(),
      decidedAt: Date.now(),
    });
    const variant = nextId();
    await addCodes(db, { id: `gid://shopify/ProductVariant/${variant}`, title: "Vertex Rust - 1 Week" }, `LIC-${variant}`);
    const order = {
      ...paidOrderPayload({ variant, variantTitle: "1 Week", price: "50.00" }),
      note_attributes: [{ name: "affiliate", value: code }],
    };
    await deliver("orders/paid", order);
    return { creator, code, order };
  }
  const ledgerOf = (affiliateId: string) => db.select().from(affiliateLedger).where(eq(affiliateLedger.affiliateId, affiliateId)).all();
  const sum = (rows: { amountCents: number }[]) => rows.reduce((total, row) => total + row.amountCents, 0);

  it("voids the held commission while the dispute is open and gives it back when it is won, once", async () => {
    const { creator, order } = await referredOrder();
    expect(sum(await ledgerOf(creator.id))).toBe(1000);
    const opened = disputeBody(order.id, "needs_response");
    await deliver("disputes/create", opened);
    await deliver("disputes/create", opened);
    expect(sum(await ledgerOf(creator.id))).toBe(0);
    expect(await auditsOf(order.id, "dispute.commission-voided")).toHaveLength(1);
    await deliver("disputes/update", { ...opened, status: "won" });
    await deliver("disputes/update", { ...opened, status: "won" });
    expect(sum(await ledgerOf(creator.id))).toBe(1000);
    expect(await auditsOf(order.id, "dispute.commission-restored")).toHaveLength(1);
  });

  it("leaves the commission voided when the dispute is lost", async () => {
    const { creator, order } = await referredOrder();
    const opened = disputeBody(order.id, "under_review");
    await deliver("disputes/create", opened);
    await deliver("disputes/update", { ...opened, status: "lost" });
    expect(sum(await ledgerOf(creator.id))).toBe(0);
  });

  it("holds released commission from the affiliate's reseller balance while open, and releases it when won", async () => {
    const { creator, code } = await referredOrder();
    // An older referred order whose hold is over, its commission withdrawn to the reseller balance.
    const orderId = nextId();
    expect(
      await recordCommission(
        db,
        { code },
        {
          orderKey: `shopify:${orderId}`,
          paidCents: 5000,
          currency: "USD",
          buyer: { email: `${unique("b")}@example.test` },
          paidAt: Date.now() - HOLD_MS - 60_000,
        },
      ),
    ).toBe(true);
    const cookie = await signIn(creator);
    expect((await call("/dashboard/affiliate", { form: { intent: "withdraw", request: crypto.randomUUID() }, cookie })).status).toBe(200);
    const balance = async () =>
      (await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, creator.id)).get())!.balanceCents;
    expect(await balance()).toBe(1000);

    const opened = disputeBody(orderId, "needs_response");
    await deliver("disputes/create", opened);
    await deliver("disputes/create", opened);
    expect(await balance()).toBe(0);
    const holds = await db
      .select()
      .from(resellerLedger)
      .where(and(eq(resellerLedger.userId, creator.id), like(resellerLedger.kind, "dispute-%")))
      .all();
    expect(holds.map((h) => [h.kind, h.amountCents])).toEqual([["dispute-hold", -1000]]);
    await deliver("disputes/update", { ...opened, status: "won" });
    await deliver("disputes/update", { ...opened, status: "won" });
    expect(await balance()).toBe(1000);
    expect(await auditsOf(orderId, "dispute.balance-held")).toHaveLength(1);
    expect(await auditsOf(orderId, "dispute.balance-released")).toHaveLength(1);
  });
});

describe("the Disputes page", () => {
  it("lists an open dispute with the buyer's licence activity and exports it as evidence for Shopify", async () => {
    const bought = await activatedPurchase();
    // A check from a located address, as a program in Germany makes it.
    const located = await exports.default.fetch(
      new Request(`${ORIGIN}/api/v1/licences/validate`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "CF-Connecting-IP": "203.0.113.90", "CF-IPCountry": "DE" },
        body: JSON.stringify({ key: bought.key, hwid: bought.pc, nonce: unique("nonce-0123456789"), device: "GAMING-PC" }),
        cf: { city: "Berlin", country: "DE" },
      } as RequestInit),
    );
    expect(((await located.json()) as { code: string }).code).toBe("VALID");
    const dispute = disputeBody(bought.orderId, "needs_response");
    await deliver("disputes/create", dispute);
    const admin = await signIn(await createAccount({ role: "support" }), "192.0.2.230");
    const page = (await (await call("/dashboard/disputes", { cookie: admin })).text()).replace(/<!-- -->/g, "");
    expect(page).toContain(`Order ${bought.order.name}`);
    expect(page).toContain("Export evidence");

    // The check's sighting reaches the key's watch after its answer, later on a loaded machine.
    await vi.waitFor(
      async () => {
        const file = await call(`/dashboard/disputes/${dispute.id}/evidence.txt`, { cookie: admin });
        expect(file.status).toBe(200);
        expect(file.headers.get("Content-Disposition")).toContain(`dispute-${dispute.id}-evidence.txt`);
        const text = await file.text();
        expect(text).toContain(`Order ${bought.order.name}`);
        expect(text).toContain(bought.email);
        expect(text).toMatch(/First activated: \w{3} \d{2}, \d{4}/);
        expect(text).toContain('("GAMING-PC")');
        expect(text).toContain("from Berlin, DE");
        expect(text).toContain("in DE");
        expect(text).toMatch(/sent to .*@example\.test/);
      },
      { timeout: 10_000 },
    );
    // A member sees none of it.
    const member = await signIn(bought.account, "192.0.2.231");
    expect((await call(`/dashboard/disputes/${dispute.id}/evidence.txt`, { cookie: member })).status).toBe(403);
  });
});
