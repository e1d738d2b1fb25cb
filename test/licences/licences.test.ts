import { env, exports } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import worker from "../../workers/app";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { addCodes } from "~/server/keys/stock.server";
import { licenceSigner, signAnswer } from "~/server/licences/signing.server";
import { renderMarkdown } from "~/server/platform/markdown.server";
import { CHECK_RECORD_INTERVAL_MS, type LicenceAnswer, offlineLeaseMs } from "~/server/licences/validation.server";
import { LicenceClient, type LicenceClientOptions, memoryLeaseStore } from "../../sdk/typescript/src/licence-client";
import {
  bannedHwids,
  cryptoOrders,
  licences,
  productCodes,
  resellerAccounts,
  resellerKeys,
  userSubscriptions,
  users,
} from "~/server/platform/db/schema.server";
import {
  boughtKey,
  call,
  createAccount,
  cryptoKeySent,
  db,
  deliver,
  hwid,
  nextId,
  ORIGIN,
  paidOrderPayload,
  signIn,
  unique,
  validate,
} from "../helpers";

const nonce = () => crypto.randomUUID();

const DAY = 24 * 3600 * 1000;

afterEach(() => {
  vi.useRealTimers();
});

/** The shop's public key as a program has it built in. */
async function publicKey() {
  return ((await (await exports.default.fetch(`${ORIGIN}/api/v1/licences/signing-key`)).json()) as { publicKey: string }).publicKey;
}

/** The TypeScript client, talking to the Worker under test, with the key the API publishes. */
async function client({ tamper, ...options }: { tamper?: (body: string) => string } & Partial<LicenceClientOptions> = {}) {
  return new LicenceClient({
    baseUrl: ORIGIN,
    publicKey: await publicKey(),
    fetch: async (request) => {
      request.headers.set("CF-Connecting-IP", `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`);
      const response = await exports.default.fetch(request);
      if (!tamper) return response;
      return new Response(tamper(await response.text()), { status: response.status, headers: response.headers });
    },
    ...options,
  });
}

describe("licence validation", () => {
  it("activates a key on its first valid call and binds that PC", async () => {
    const { key } = await boughtKey("1 Week");
    const pc = hwid();
    const sent = nonce();
    const first = await validate({ key, hwid: pc, nonce: sent });
    expect(first.response.status).toBe(200);
    expect(first.json).toMatchObject({
      valid: true,
      code: "VALID",
      key,
      hwid: pc,
      nonce: sent,
      licence: { product: "Vertex Rust", plan: "weekly" },
    });
    const { activatedAt, expiresAt } = first.json.licence;
    expect(Date.parse(expiresAt) - Date.parse(activatedAt)).toBe(7 * 24 * 3600 * 1000);
    expect(first.response.headers.get("Licence-Signature")).toBeTruthy();

    const again = await validate({ key, hwid: pc, nonce: nonce() });
    expect(again.json).toMatchObject({ code: "VALID", licence: { activatedAt, expiresAt } });
    const other = await validate({ key, hwid: hwid(), nonce: nonce() });
    // Another PC learns nothing of the licence's terms.
    expect(other.json).toMatchObject({ valid: false, code: "HWID_MISMATCH", licence: null });
    const row = await db.select().from(licences).where(eq(licences.key, key)).get();
    expect(row?.hwid).toBe(pc);
  });

  it("answers NOT_FOUND with no licence for an unknown key", async () => {
    const { json } = await validate({ key: "NOPE-123", hwid: hwid(), nonce: nonce() });
    expect(json).toMatchObject({ valid: false, code: "NOT_FOUND", licence: null, ttl: 0 });
  });

  it("refuses malformed requests with 400 and a JSON error", async () => {
    for (const body of ["not json", "[]", { key: "K", hwid: "short", nonce: nonce() }, { key: "K", hwid: hwid(), nonce: "tiny" }]) {
      const { response, json } = await validate(body);
      expect(response.status).toBe(400);
      expect(json.error.code).toBe("INVALID_REQUEST");
    }
  });

  it("lets a subscription's clock start at activation", async () => {
    const account = await createAccount();
    const { key } = await boughtKey("30 Days", account.email);
    const before = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).get();
    expect(before).toMatchObject({ status: "active", expiryDate: null });
    const { json } = await validate({ key, hwid: hwid(), nonce: nonce() });
    const after = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).get();
    expect(after?.expiryDate).toBe(Date.parse(json.licence.expiresAt));
  });
});

/** One of five weekly keys a new reseller generated in the panel. */
async function resellerKey() {
  const account = await createAccount();
  const cookie = await signIn(account, unique("ip"));
  await call("/dashboard/resell", { cookie });
  await db.update(resellerAccounts).set({ balanceCents: 100_000 }).where(eq(resellerAccounts.userId, account.id));
  await call("/dashboard/resell", { form: { intent: "generate", quantity: "5", keyType: "weekly" }, cookie });
  const [generated] = await db.select().from(resellerKeys).where(eq(resellerKeys.userId, account.id));
  return { account, generated: generated! };
}

describe("licence validation: the rules", () => {
  it("binds exactly one PC when two race for a new key", async () => {
    const { key } = await boughtKey("1 Week");
    const pcs = Array.from({ length: 6 }, () => hwid());
    const answers = await Promise.all(pcs.map((pc) => validate({ key, hwid: pc, nonce: nonce() })));
    const winners = answers.filter((a) => a.json.code === "VALID");
    expect(winners).toHaveLength(1);
    expect(answers.filter((a) => a.json.code === "HWID_MISMATCH")).toHaveLength(pcs.length - 1);
    const row = await db.select().from(licences).where(eq(licences.key, key)).get();
    expect(row?.hwid).toBe(pcs[answers.indexOf(winners[0]!)]);
  });

  it("starts a timed key's clock at activation, not at purchase, and answers EXPIRED after it runs out", async () => {
    const { key } = await boughtKey("24 Hours");
    vi.useFakeTimers({ toFake: ["Date"] });
    const activation = Date.now() + 10 * DAY;
    vi.setSystemTime(activation);
    const pc = hwid();
    const first = await validate({ key, hwid: pc, nonce: nonce() });
    expect(first.json).toMatchObject({
      code: "VALID",
      licence: { plan: "daily", activatedAt: new Date(activation).toISOString(), expiresAt: new Date(activation + DAY).toISOString() },
    });
    vi.setSystemTime(activation + DAY - 60_000);
    const late = await validate({ key, hwid: pc, nonce: nonce() });
    // Neither the re-check nor the offline lease reaches past the expiry.
    expect(late.json).toMatchObject({ code: "VALID", ttl: 60, lease: { until: new Date(activation + DAY).toISOString() } });
    vi.setSystemTime(activation + DAY);
    expect((await validate({ key, hwid: pc, nonce: nonce() })).json).toMatchObject({ valid: false, code: "EXPIRED", ttl: 0, lease: null });
  });

  it("keeps a lifetime key without an expiry, asks for a re-check in 10 minutes and leases it for 72 hours offline", async () => {
    const { key } = await boughtKey("Default Title");
    const { json } = await validate({ key, hwid: hwid(), nonce: nonce() });
    expect(json).toMatchObject({ code: "VALID", ttl: 600, licence: { plan: "lifetime", expiresAt: null } });
    expect(Date.parse(json.lease.until) - Date.parse(json.issuedAt)).toBe(72 * 3600 * 1000);
  });

  it("gives no offline lease with any answer but VALID", async () => {
    const { key } = await boughtKey();
    await validate({ key, hwid: hwid(), nonce: nonce() });
    const answers = await Promise.all([
      validate({ key, hwid: hwid(), nonce: nonce() }),
      validate({ key: "NOPE-LEASE", hwid: hwid(), nonce: nonce() }),
      validate({ key: (await boughtKey()).key, hwid: hwid(), nonce: nonce(), activate: false }),
    ]);
    expect(answers.map((a) => [a.json.code, a.json.lease, a.json.ttl])).toEqual([
      ["HWID_MISMATCH", null, 0],
      ["NOT_FOUND", null, 0],
      ["NOT_ACTIVATED", null, 0],
    ]);
  });

  it("reads the offline lease's length from LICENCE_OFFLINE_HOURS, falling back to 72 hours on a bad value", () => {
    const hours = (setting: string | undefined) => offlineLeaseMs(setting) / 3600_000;
    expect([hours("24"), hours("0"), hours("1.5")]).toEqual([24, 0, 1.5]);
    expect([hours(undefined), hours(""), hours(" "), hours("-3"), hours("forever"), hours("Infinity")]).toEqual([72, 72, 72, 72, 72, 72]);
  });

  it("shows the device name the bound PC sends next to it, and forgets it when the PC is reset", async () => {
    const account = await createAccount();
    const { key } = await boughtKey("1 Week", account.email);
    const pc = hwid();
    expect((await validate({ key, hwid: pc, nonce: nonce(), device: "  GAMING-RIG  " })).json.code).toBe("VALID");
    // Another PC cannot rename the bound one.
    await validate({ key, hwid: hwid(), nonce: nonce(), device: "INTRUDER" });
    const cookie = await signIn(account, unique("ip"));
    await vi.waitFor(async () => expect(await (await call("/dashboard/subscriptions", { cookie })).text()).toContain("GAMING-RIG"));
    expect(await (await call("/dashboard/subscriptions", { cookie })).text()).not.toContain("INTRUDER");

    const { id } = (await db.select().from(licences).where(eq(licences.key, key)).get())!;
    await call("/dashboard/subscriptions", { form: { intent: "reset-hwid", licenceId: String(id) }, cookie });
    expect((await db.select().from(licences).where(eq(licences.key, key)).get())?.lastCheckDevice).toBeNull();
    // The next PC names itself at once, within the hour the last check is otherwise kept for.
    await validate({ key, hwid: hwid(), nonce: nonce(), device: "LAPTOP" });
    await vi.waitFor(async () =>
      expect((await db.select().from(licences).where(eq(licences.key, key)).get())?.lastCheckDevice).toBe("LAPTOP"),
    );
  });

  it("refuses a device name that is too long or not printable, and takes a blank one as none", async () => {
    for (const device of ["x".repeat(65), "PC\u0007BELL", "ÜBER-PC", 42]) {
      const { response, json } = await validate({ key: "NOPE-DEVICE", hwid: hwid(), nonce: nonce(), device });
      expect(response.status).toBe(400);
      expect(json.error).toMatchObject({ code: "INVALID_REQUEST", field: "device" });
    }
    const { key } = await boughtKey();
    expect((await validate({ key, hwid: hwid(), nonce: nonce(), device: "   " })).json.code).toBe("VALID");
    await vi.waitFor(async () => expect((await db.select().from(licences).where(eq(licences.key, key)).get())?.lastCheckAt).not.toBeNull());
    expect((await db.select().from(licences).where(eq(licences.key, key)).get())?.lastCheckDevice).toBeNull();
  });

  it("only looks when asked not to activate: a new key answers NOT_ACTIVATED and stays free", async () => {
    const { key } = await boughtKey();
    const peek = await validate({ key, hwid: hwid(), nonce: nonce(), activate: false });
    expect(peek.json).toMatchObject({ valid: false, code: "NOT_ACTIVATED", licence: { activatedAt: null, expiresAt: null } });
    expect((await db.select().from(licences).where(eq(licences.key, key)).get())?.hwid).toBeNull();
  });

  it("tells only the bound PC the terms of an expired, revoked or paused licence; any other PC gets the code alone", async () => {
    const stopped = {
      EXPIRED: { expiresAt: Date.now() - 60_000 },
      REVOKED: { revokedAt: Date.now() },
      SUSPENDED: { pausedAt: Date.now() },
    } as const;
    for (const [code, change] of Object.entries(stopped)) {
      const { key } = await boughtKey("1 Week");
      const pc = hwid();
      expect((await validate({ key, hwid: pc, nonce: nonce() })).json.code).toBe("VALID");
      await db.update(licences).set(change).where(eq(licences.key, key));
      const owner = await validate({ key, hwid: pc, nonce: nonce() });
      expect(owner.json, code).toMatchObject({
        valid: false,
        code,
        licence: { product: "Vertex Rust", plan: "weekly", entitlements: ["config-library"] },
      });
      for (const activate of [true, false]) {
        const stranger = await validate({ key, hwid: hwid(), nonce: nonce(), activate });
        expect(stranger.json, code).toMatchObject({ valid: false, code, licence: null, lease: null });
        expect(stranger.text, code).not.toContain("Vertex Rust");
      }
      // The auto-update's answer carries the same verdict, with the same terms or none.
      const update = await exports.default.fetch(
        new Request(`${ORIGIN}/api/v1/releases/latest`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "CF-Connecting-IP": "203.0.113.77" },
          body: JSON.stringify({ key, hwid: hwid(), nonce: nonce().replaceAll("-", "") }),
        }),
      );
      expect(await update.json(), code).toMatchObject({ code, licence: null, release: null });
    }
    // A key revoked before any PC used it is nobody's PC's: its terms go to no one.
    const cancelled = await boughtKey();
    await deliver("orders/cancelled", { ...cancelled.order, cancelled_at: new Date().toISOString() });
    expect((await validate({ key: cancelled.key, hwid: hwid(), nonce: nonce() })).json).toMatchObject({ code: "REVOKED", licence: null });
  });

  it("answers REVOKED once the order is refunded, and for every key of a cancelled order", async () => {
    const refunded = await boughtKey();
    const pc = hwid();
    expect((await validate({ key: refunded.key, hwid: pc, nonce: nonce() })).json.code).toBe("VALID");
    await deliver("refunds/create", {
      id: nextId(),
      order_id: refunded.orderId,
      refund_line_items: [{ line_item_id: refunded.lineId, quantity: 1 }],
    });
    expect((await validate({ key: refunded.key, hwid: pc, nonce: nonce() })).json).toMatchObject({ valid: false, code: "REVOKED" });

    const cancelled = await boughtKey();
    await deliver("orders/cancelled", { ...cancelled.order, cancelled_at: new Date().toISOString() });
    expect((await validate({ key: cancelled.key, hwid: hwid(), nonce: nonce() })).json.code).toBe("REVOKED");
    // A revoked key never binds a PC.
    expect((await db.select().from(licences).where(eq(licences.key, cancelled.key)).get())?.hwid).toBeNull();
  });

  it("answers REVOKED for a key refunded before its licence was written", async () => {
    const account = await createAccount();
    const bought = await boughtKey("1 Week", account.email);
    // As if the run that handed the key out stopped right after claiming it.
    await db.delete(licences).where(eq(licences.key, bought.key));
    await db.delete(userSubscriptions).where(eq(userSubscriptions.userId, account.id));
    await deliver("refunds/create", {
      id: nextId(),
      order_id: bought.orderId,
      refund_line_items: [{ line_item_id: bought.lineId, quantity: 1 }],
    });
    // Shopify delivers orders/paid again; the retry finishes the sale, revoked as the code is.
    await deliver("orders/paid", bought.order);
    expect((await db.select().from(licences).where(eq(licences.key, bought.key)).get())?.revokedAt).not.toBeNull();
    expect((await validate({ key: bought.key, hwid: hwid(), nonce: nonce() })).json.code).toBe("REVOKED");
    expect((await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).get())?.status).toBe("revoked");
  });

  it("records the bound PC's last check (time and place), and not another PC's", async () => {
    const { key } = await boughtKey();
    const pc = hwid();
    await validate({ key, hwid: pc, nonce: nonce() });
    await vi.waitFor(async () => expect((await db.select().from(licences).where(eq(licences.key, key)).get())?.lastCheckAt).not.toBeNull());
    const recorded = (await db.select().from(licences).where(eq(licences.key, key)).get())!.lastCheckAt;
    // A check is noted at most once an hour: one from over an hour ago is noted again.
    const earlier = recorded! - CHECK_RECORD_INTERVAL_MS - 1000;
    await db.update(licences).set({ lastCheckAt: earlier }).where(eq(licences.key, key));
    await validate({ key, hwid: hwid(), nonce: nonce() });
    await validate({ key, hwid: pc, nonce: nonce() });
    await vi.waitFor(async () =>
      expect((await db.select().from(licences).where(eq(licences.key, key)).get())?.lastCheckAt).toBeGreaterThan(earlier),
    );
  });

  it("answers BANNED for a banned key and for any key on a banned PC, before anything else", async () => {
    const { key } = await boughtKey();
    const pc = hwid();
    await validate({ key, hwid: pc, nonce: nonce() });
    await db.update(licences).set({ bannedAt: Date.now(), banReason: "chargeback" }).where(eq(licences.key, key));
    expect((await validate({ key, hwid: pc, nonce: nonce() })).json).toMatchObject({ valid: false, code: "BANNED" });

    const other = await boughtKey();
    const banned = hwid();
    await db.insert(bannedHwids).values({ hwid: banned, reason: "cheating in ranked", bannedAt: Date.now() });
    expect((await validate({ key: other.key, hwid: banned, nonce: nonce() })).json.code).toBe("BANNED");
    // The banned PC did not take the key: another PC still can.
    expect((await validate({ key: other.key, hwid: hwid(), nonce: nonce() })).json.code).toBe("VALID");
  });

  it("validates a reseller's generated key like a sold one, and marks it used on activation", async () => {
    const { account, generated } = await resellerKey();
    const { json } = await validate({ key: generated.keyCode, hwid: hwid(), nonce: nonce() });
    expect(json).toMatchObject({ valid: true, code: "VALID", licence: { product: "Vertex Rust", plan: "weekly" } });
    expect(Date.parse(json.licence.expiresAt) - Date.parse(json.licence.activatedAt)).toBe(7 * DAY);
    expect((await db.select().from(resellerKeys).where(eq(resellerKeys.id, generated.id)).get())?.status).toBe("used");
    const owned = await db.select().from(licences).where(eq(licences.resellerKeyId, generated.id)).get();
    expect(owned?.ownerEmail).toBe(account.email);
  });

  /** A weekly crypto order whose payment arrived after its quote ran out, with the admin who fulfils it. */
  async function paidCryptoOrder() {
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    const opened = await call("/api/crypto-orders", {
      form: { intent: "open", variantId: "gid://shopify/ProductVariant/4710000000001" },
      cookie,
    });
    const { order } = (await opened.json()) as { order: { orderNumber: string } };
    // What the chain watcher records for money seen after expiry (test/crypto-orders.test.ts).
    const [row] = await db
      .update(cryptoOrders)
      .set({ status: "paid-late", review: "paid-late" })
      .where(eq(cryptoOrders.orderNumber, order.orderNumber))
      .returning();
    const admin = await signIn(await createAccount({ admin: true }), unique("ip"));
    const fulfil = (code: string) =>
      call("/dashboard/manage-codes/crypto-orders", {
        form: { intent: "fulfil", orderId: row!.id, source: "manual", code },
        cookie: admin,
      });
    return { account, fulfil, orderId: row!.id };
  }

  it("validates a crypto order's key like a Shopify one", async () => {
    const { account, fulfil, orderId } = await paidCryptoOrder();
    const typed = `TYPED-${unique("k").toUpperCase()}`;
    expect((await fulfil(typed)).status).toBe(200);
    await cryptoKeySent(orderId);
    const { json } = await validate({ key: typed, hwid: hwid(), nonce: nonce() });
    expect(json).toMatchObject({ valid: true, licence: { product: "Vertex Rust", plan: "weekly" } });
    const subscription = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).get();
    expect(subscription?.expiryDate).toBe(Date.parse(json.licence.expiresAt));
  });

  it("refuses to fulfil a crypto order with a code that is already a reseller's key", async () => {
    const { generated } = await resellerKey();
    const { account, fulfil } = await paidCryptoOrder();
    const refused = await fulfil(generated.keyCode);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("This code has already been sold");
    expect(await db.select().from(licences).where(eq(licences.ownerEmail, account.email))).toHaveLength(0);
  });

  it("refuses to stock a code that is already a reseller's key, so one key never names two licences", async () => {
    const key = (await resellerKey()).generated.keyCode;
    const variant = `gid://shopify/ProductVariant/${nextId()}`;
    const result = await addCodes(db, { id: variant, title: "Vertex Rust - 1 Week" }, `${key}\nFRESH-${nextId()}`);
    expect(result).toMatchObject({ ok: true, value: { added: 1, alreadyStored: 1 } });
    expect(
      await db
        .select()
        .from(productCodes)
        .where(and(eq(productCodes.variantId, variant), eq(productCodes.code, key))),
    ).toHaveLength(0);
  });
});

describe("licence answers are signed", () => {
  it("publishes the Ed25519 public key, and its signature over the exact body verifies", async () => {
    const response = await exports.default.fetch(`${ORIGIN}/api/v1/licences/signing-key`);
    const published = (await response.json()) as { alg: string; publicKey: string };
    expect(published.alg).toBe("Ed25519");
    const raw = Uint8Array.from(atob(published.publicKey), (c) => c.charCodeAt(0));
    expect(raw).toHaveLength(32);
    const key = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);

    const { key: licenceKey } = await boughtKey();
    const { response: answer, text } = await validate({ key: licenceKey, hwid: hwid(), nonce: nonce() });
    const signature = Uint8Array.from(atob(answer.headers.get("Licence-Signature")!), (c) => c.charCodeAt(0));
    const body = new TextEncoder().encode(text);
    expect(await crypto.subtle.verify({ name: "Ed25519" }, key, signature, body)).toBe(true);
    const tampered = new TextEncoder().encode(text.replace('"valid":true', '"valid":false'));
    expect(tampered).not.toEqual(body);
    expect(await crypto.subtle.verify({ name: "Ed25519" }, key, signature, tampered)).toBe(false);
  });

  it("the client trusts a genuine answer, stores its lease, and stops on a later signed BANNED", async () => {
    const { key } = await boughtKey();
    const pc = hwid();
    const store = memoryLeaseStore();
    const genuine = await client({ store });
    const first = await genuine.check(key, pc);
    expect(first).toMatchObject({ outcome: "valid", code: "VALID", offline: false, answer: { ttl: 600 } });
    expect(JSON.parse((await store.read())!.body)).toMatchObject({ key, hwid: pc, code: "VALID" });

    await db.update(licences).set({ bannedAt: Date.now() }).where(eq(licences.key, key));
    expect(await genuine.check(key, pc)).toMatchObject({ outcome: "denied", code: "BANNED" });
    // A signed refusal takes the lease's place: cutting the network now does not bring the licence back.
    expect(JSON.parse((await store.read())!.body)).toMatchObject({ key, hwid: pc, code: "BANNED" });
    const cut = new LicenceClient({
      baseUrl: ORIGIN,
      publicKey: await publicKey(),
      store,
      fetch: () => Promise.reject(new TypeError("fetch failed")),
    });
    expect(await cut.check(key, pc)).toMatchObject({ outcome: "denied", code: "BANNED", offline: true });
  });

  it("the client treats an edited answer as tampered, never as valid or offline", async () => {
    const { key } = await boughtKey();
    const pc = hwid();
    await validate({ key, hwid: pc, nonce: nonce() });
    await db.update(licences).set({ bannedAt: Date.now() }).where(eq(licences.key, key));
    const forged = await client({
      tamper: (body) => body.replace('"code":"BANNED"', '"code":"VALID"').replace('"valid":false', '"valid":true'),
    });
    expect(await forged.check(key, pc)).toMatchObject({ outcome: "tampered", reason: "signature" });
  });

  it("the client works offline on its lease when the shop cannot be reached, and not for another PC", async () => {
    const { key } = await boughtKey();
    const pc = hwid();
    const store = memoryLeaseStore();
    await (await client({ store })).check(key, pc);
    const outages: [string, () => Promise<Response>][] = [
      ["server-error", async () => new Response("{}", { status: 503 })],
      ["unreachable", () => Promise.reject(new TypeError("fetch failed"))],
    ];
    for (const [reason, down] of outages) {
      const cut = new LicenceClient({ baseUrl: ORIGIN, publicKey: await publicKey(), store, fetch: down });
      expect(await cut.check(key, pc)).toMatchObject({ outcome: "valid", offline: true, answer: { key, hwid: pc } });
      // Another PC: the lease's own reason, and the network's beside it.
      expect(await cut.check(key, hwid())).toMatchObject({ outcome: "offline", reason: "no-lease", network: reason });
    }
  });

  it("the client rejects a genuine answer about another key or PC, even with its own nonce", async () => {
    const licensed = await boughtKey();
    const licensedPc = hwid();
    await validate({ key: licensed.key, hwid: licensedPc, nonce: nonce() });
    // A proxy the user controls keeps the program's nonce but asks about a licensed key and PC.
    const swapping = new LicenceClient({
      baseUrl: ORIGIN,
      publicKey: await publicKey(),
      fetch: async (request) => {
        const asked = (await request.json()) as { nonce: string };
        return exports.default.fetch(
          new Request(request.url, {
            method: "POST",
            headers: { "CF-Connecting-IP": "198.18.0.9" },
            body: JSON.stringify({ key: licensed.key, hwid: licensedPc, nonce: asked.nonce }),
          }),
        );
      },
    });
    expect(await swapping.check("UNLICENSED-KEY", licensedPc)).toMatchObject({ outcome: "tampered", reason: "key" });
    expect(await swapping.check(licensed.key, hwid())).toMatchObject({ outcome: "tampered", reason: "hwid" });
  });

  it("the client refuses a key for another product when told which product it is", async () => {
    const { key } = await boughtKey();
    const fetchWorker = (request: Request) => exports.default.fetch(request);
    const pc = hwid();
    const ofProduct = async (product: string) =>
      new LicenceClient({ baseUrl: ORIGIN, publicKey: await publicKey(), product, fetch: fetchWorker }).check(key, pc);
    expect(await ofProduct("Vertex Apex")).toMatchObject({ outcome: "denied", code: "WRONG_PRODUCT" });
    expect(await ofProduct("Vertex Rust")).toMatchObject({ outcome: "valid" });
  });

  it("the client rejects a genuine answer to another request (a replay)", async () => {
    const { key } = await boughtKey();
    const pc = hwid();
    const recorded = await validate({ key, hwid: pc, nonce: nonce() });
    const replaying = new LicenceClient({
      baseUrl: ORIGIN,
      publicKey: await publicKey(),
      fetch: async () => new Response(recorded.text, { headers: recorded.response.headers }),
    });
    expect(await replaying.check(key, pc)).toMatchObject({ outcome: "tampered", reason: "nonce" });
  });

  it("the client sends the PC's name, which the owner then sees", async () => {
    const account = await createAccount();
    const { key } = await boughtKey("1 Week", account.email);
    expect(await (await client({ device: "STUDIO-PC" })).check(key, hwid())).toMatchObject({ outcome: "valid" });
    await vi.waitFor(async () =>
      expect((await db.select().from(licences).where(eq(licences.key, key)).get())?.lastCheckDevice).toBe("STUDIO-PC"),
    );
  });

  it("the client reads the licence's entitlements from a signed answer, and none when it lists none", async () => {
    const signer = await licenceSigner(env.LICENCE_SIGNING_KEY);
    if (!signer.ok) throw new Error("no signing key");
    const { key } = await boughtKey();
    const pc = hwid();
    const answering = (entitlements?: string[]) =>
      new LicenceClient({
        baseUrl: ORIGIN,
        publicKey: signer.value.publicKey,
        fetch: async (request) => {
          const answer = (await (await exports.default.fetch(request)).json()) as LicenceAnswer;
          // The answer re-signed with the list the test chooses, whatever the key's plan includes.
          if (entitlements) Object.assign(answer.licence!, { entitlements });
          const { bytes, signature } = await signAnswer(signer.value, answer);
          return new Response(bytes, { headers: { "Licence-Signature": signature } });
        },
      });
    const granted = await answering(["beta", "configs"]).check(key, pc);
    expect([granted.outcome, granted.hasEntitlement("beta"), granted.hasEntitlement("configs"), granted.hasEntitlement("admin")]).toEqual([
      "valid",
      true,
      true,
      false,
    ]);
    const plain = await answering().check(key, pc);
    expect([plain.outcome, plain.hasEntitlement("beta")]).toEqual(["valid", false]);
    expect((await answering(["beta"]).check(key, hwid())).hasEntitlement("beta")).toBe(false);
  });
});

describe("a banned account's keys", () => {
  // Vertex Rust - Default Title in the demo catalogue: a variant the stock form accepts.
  const LIFETIME = 4710000000003;

  it("answer BANNED, signed, also for a key handed out after the ban, and work again after the unban", async () => {
    const member = await createAccount();
    const { key } = await boughtKey("1 Week", member.email);
    const pc = hwid();
    const licensing = await client();
    expect(await licensing.check(key, pc)).toMatchObject({ outcome: "valid", code: "VALID" });

    const admin = await createAccount({ admin: true });
    const cookie = await signIn(admin, unique("ip"));
    const customer = (form: Record<string, string>) => call(`/dashboard/customers/${member.id}`, { form, cookie });
    expect((await customer({ intent: "ban", reason: "Chargeback fraud" })).status).toBe(200);
    // The client verifies the signature: the refusal is the shop's own word.
    expect(await licensing.check(key, pc)).toMatchObject({
      outcome: "denied",
      code: "BANNED",
      answer: { licence: null, ttl: 0, lease: null },
    });

    // A backorder filled after the ban hands the account a key that is banned from its first call.
    await db
      .delete(productCodes)
      .where(and(eq(productCodes.variantId, `gid://shopify/ProductVariant/${LIFETIME}`), eq(productCodes.isUsed, false)));
    await deliver(
      "orders/paid",
      paidOrderPayload({ variant: LIFETIME, variantTitle: "Default Title", price: "149.99" }, { email: member.email }),
    );
    const later = unique("LATE").toUpperCase();
    const restock = await call("/dashboard/manage-codes/stock", {
      form: { intent: "add", variantId: `gid://shopify/ProductVariant/${LIFETIME}`, codes: later },
      cookie,
    });
    expect(restock.status).toBe(200);
    expect(
      (await db.select({ customerEmail: productCodes.customerEmail }).from(productCodes).where(eq(productCodes.code, later)).get())
        ?.customerEmail,
    ).toBe(member.email);
    const otherPc = hwid();
    expect(await licensing.check(later, otherPc)).toMatchObject({ code: "BANNED" });
    // A banned answer binds nothing.
    expect((await db.select({ hwid: licences.hwid }).from(licences).where(eq(licences.key, later)).get())?.hwid).toBeNull();

    expect((await customer({ intent: "unban" })).status).toBe(200);
    expect(await licensing.check(key, pc)).toMatchObject({ outcome: "valid", code: "VALID" });
    expect(await licensing.check(later, otherPc)).toMatchObject({ outcome: "valid", code: "VALID" });
  });

  it("leave keys alone when only an unverified registration of the address is banned", async () => {
    const email = `${unique("buyer")}@example.test`;
    const { key } = await boughtKey("1 Week", email);
    const squatter = await createAccount({ verified: false });
    await db.update(users).set({ email, bannedAt: Date.now(), banReason: "x" }).where(eq(users.id, squatter.id));
    expect((await validate({ key, hwid: hwid(), nonce: nonce() })).json).toMatchObject({ code: "VALID" });
  });
});

describe("licence API limits and contract", () => {
  /**
   * Calls until the first refusal. The bindings count in fixed 60-second windows, so a run that
   * straddles a window's end may pass up to twice the limit before one; it can never pass more.
   */
  async function callsUntilRefused(
    limit: number,
    call: (i: number) => Promise<{ response: Response; json: { error?: { code: string } } }>,
  ) {
    for (let i = 0; i <= 2 * limit; i++) {
      const { response, json } = await call(i);
      if (response.status === 429) return { passed: i, refused: response, json };
      expect(response.status).toBe(200);
    }
    return { passed: 2 * limit + 1, refused: undefined, json: undefined };
  }

  it("limits calls per key to 60 a minute, with Retry-After", async () => {
    const { key } = await boughtKey();
    const pc = hwid();
    const { passed, refused, json } = await callsUntilRefused(60, (i) => validate({ key, hwid: pc, nonce: nonce() }, `192.0.2.${i}`));
    expect(passed).toBeGreaterThanOrEqual(60);
    expect(refused?.headers.get("Retry-After")).toBe("60");
    expect(json).toMatchObject({ error: { code: "RATE_LIMITED" } });
  });

  it("keeps answering the bound PC while strangers spend the key's budget", async () => {
    const { key } = await boughtKey();
    const pc = hwid();
    expect((await validate({ key, hwid: pc, nonce: nonce() })).json).toMatchObject({ code: "VALID" });
    // Strangers who know the key, each from an address and a PC of their own, are refused in time…
    // (The first check, made before the key was bound, counted against the strangers' budget.)
    const { passed, refused } = await callsUntilRefused(60, (i) => validate({ key, hwid: hwid(), nonce: nonce() }, `192.0.2.${i}`));
    expect(passed).toBeGreaterThanOrEqual(59);
    expect(refused?.status).toBe(429);
    expect((await validate({ key, hwid: hwid(), nonce: nonce() })).response.status).toBe(429);
    // …while the PC the key is bound to keeps getting answers.
    for (let i = 0; i < 5; i++) {
      const own = await validate({ key, hwid: pc, nonce: nonce() });
      expect(own.response.status).toBe(200);
      expect(own.json).toMatchObject({ valid: true, code: "VALID" });
    }
  });

  it("limits calls per client address to 300 a minute, whatever the keys, counting an IPv6 /64 as one client", async () => {
    const network = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:7`;
    // Addresses of one /64, written in full and compressed.
    const ipOf = (i: number) => (i % 2 === 0 ? `${network}:0:0:0:${i.toString(16)}` : `${network}::${i.toString(16)}`);
    const { passed, refused } = await callsUntilRefused(300, (i) =>
      validate({ key: `UNKNOWN-${i}`, hwid: hwid(), nonce: nonce() }, ipOf(i)),
    );
    expect(passed).toBeGreaterThanOrEqual(300);
    expect(refused?.headers.get("Retry-After")).toBe("60");
    // Another address is not affected.
    expect((await validate({ key: "UNKNOWN-X", hwid: hwid(), nonce: nonce() })).response.status).toBe(200);
  });

  it("answers 503 without a signing key, and says in the server log which setting is missing", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const request = new Request(`${ORIGIN}/api/v1/licences/validate`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": "203.0.113.9" },
      body: JSON.stringify({ key: "NOPE-1234", hwid: hwid(), nonce: nonce() }),
    });
    const response = await worker.fetch(
      request as Request<unknown, IncomingRequestCfProperties>,
      { ...env, LICENCE_SIGNING_KEY: "" },
      createExecutionContext(),
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: { code: "UNAVAILABLE" } });
    expect(logged.mock.calls.flat().join(" ")).toContain("LICENCE_SIGNING_KEY is not set");
    logged.mockRestore();
  });

  it("refuses a body over 64 KB with 413, and a GET with 405", async () => {
    const { response } = await validate({ key: "K".repeat(10), hwid: hwid(), nonce: nonce(), padding: "x".repeat(70_000) });
    expect(response.status).toBe(413);
    const get = await exports.default.fetch(`${ORIGIN}/api/v1/licences/validate`);
    expect(get.status).toBe(405);
    expect(get.headers.get("Allow")).toBe("POST");
  });

  it("needs no session and sets no cookie, even when a signed-in browser calls it from another site", async () => {
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    const response = await exports.default.fetch(
      new Request(`${ORIGIN}/api/v1/licences/validate`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Cookie: cookie,
          Origin: "https://elsewhere.example",
          "CF-Connecting-IP": "203.0.113.77",
        },
        body: JSON.stringify({ key: "NOPE", hwid: hwid(), nonce: nonce() }),
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
  });

  it("serves the licence docs as a page from the repository's file, showing any HTML in it as text, linked from the staff's Licences page", async () => {
    const page = await call("/docs/licence-api");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<h2>Offline leases and the program's clock</h2>");
    expect(html).toContain("FetchContent_MakeAvailable(vertex_licence)");
    expect(renderMarkdown('Look: <img src=x onerror="alert(1)"> and <script>alert(2)</script>')).toBe(
      "<p>Look: &lt;img src=x onerror=&quot;alert(1)&quot;&gt; and &lt;script&gt;alert(2)&lt;/script&gt;</p>\n",
    );
    const support = await signIn(await createAccount({ role: "support" }), unique("ip"));
    expect(await (await call("/dashboard/licences", { cookie: support })).text()).toContain('href="/docs/licence-api"');
  });

  it("publishes an OpenAPI 3.1 document naming every answer code", async () => {
    const doc = (await (await exports.default.fetch(`${ORIGIN}/api/v1/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
      components: {
        schemas: { Validation: { required: string[]; properties: { code: { enum: string[] }; lease: unknown } }; LatestRelease: unknown };
      };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual([
      "/licences/validate",
      "/licences/deactivate",
      "/releases/latest",
      "/releases/{id}/download",
      "/licences/signing-key",
      "/seller/keys",
      "/seller/keys/{key}",
      "/seller/keys/{key}/extend",
      "/seller/keys/{key}/reset-pc",
      "/seller/keys/{key}/suspend",
      "/seller/keys/{key}/unsuspend",
      "/seller/keys/{key}/revoke",
      "/seller/balance",
      "/seller/balance/history",
    ]);
    // The auto-update's contract: the signed release with its checksum and link, and the download's Range, HEAD and refusals.
    const releases = JSON.stringify({
      latest: doc.paths["/releases/latest"],
      download: doc.paths["/releases/{id}/download"],
      schema: doc.components.schemas.LatestRelease,
    });
    for (const word of ['"sha256"', '"urlExpiresAt"', '"206"', '"416"', '"403"', '"head"', "X-Checksum-SHA256", '"stable","beta"'])
      expect(releases).toContain(word);
    expect(doc.components.schemas.Validation.properties.code.enum).toEqual([
      "VALID",
      "NOT_FOUND",
      "NOT_ACTIVATED",
      "EXPIRED",
      "SUSPENDED",
      "REVOKED",
      "BANNED",
      "HWID_MISMATCH",
    ]);
    // The signed offline lease is part of the contract, as SDKs read it.
    expect(doc.components.schemas.Validation.required).toContain("lease");
    expect(JSON.stringify(doc.components.schemas.Validation.properties.lease)).toContain("until");
  });
});
