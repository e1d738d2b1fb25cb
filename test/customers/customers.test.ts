// The back office's customers: who may see and do what (members 403, support reads, admins act),
// the search, the account and buyer pages, bans that shut every way in, sessions, credits, roles,
// and the audit entries each leaves.
import { env, exports } from "cloudflare:workers";
import { and, desc, eq } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import { describe, expect, it } from "vitest";
import { createSession } from "~/server/accounts/session.server";
import { confirmEnrolment, startEnrolment } from "~/server/accounts/two-factor.server";
import {
  auditLog,
  licences,
  manualOrders,
  passkeys,
  profiles,
  recoveryCodes,
  resellerAccounts,
  resellerLedger,
  sessions,
  userRoles,
  users,
} from "~/server/platform/db/schema.server";
import {
  boughtKey,
  call,
  cookieFrom,
  createAccount,
  cryptoOrder,
  db,
  deliver,
  hwid,
  nextId,
  ORIGIN,
  paidOrderPayload,
  signIn,
  type TestAccount,
  unique,
  validate,
} from "../helpers";
import { addPasskey, passkeySignIn } from "../accounts/passkey-flows";
import { SoftwareAuthenticator } from "../accounts/webauthn-authenticator";
import { callerOf } from "~/http/caller.server";

const CUSTOMERS = "/dashboard/customers";
const SUSPENDED = "This account has been suspended. Contact support.";

/** A page's text as a reader sees it: tags and React's text separators gone, spaces collapsed. */
const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");
const page = async (path: string, cookie: string) => textOf(await (await call(path, { cookie })).text());
const act = (id: string, form: Record<string, string>, cookie: string, ip?: string) => call(`${CUSTOMERS}/${id}`, { form, cookie, ip });
const staff = async (role: "admin" | "support") => {
  const account = await createAccount({ role });
  return { account, cookie: await signIn(account, unique("ip")) };
};
const auditsOf = (subject: string, action: string) =>
  db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.subject, subject), eq(auditLog.action, action)))
    .orderBy(desc(auditLog.id))
    .all();
const login = (account: TestAccount, ip = unique("ip")) =>
  call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: account.password }, ip });

describe("who may open the customers pages", () => {
  it("refuses members with 403 on the pages, their data and every action", async () => {
    const target = await createAccount();
    const cookie = await signIn(await createAccount(), unique("ip"));
    for (const path of [
      CUSTOMERS,
      `${CUSTOMERS}.data`,
      `${CUSTOMERS}/${target.id}`,
      `${CUSTOMERS}/${target.id}.data`,
      `${CUSTOMERS}/email/someone%40example.test`,
    ]) {
      expect([path, (await call(path, { cookie })).status]).toEqual([path, 403]);
    }
    const forms: Record<string, string>[] = [
      { intent: "ban", reason: "x" },
      { intent: "role", role: "admin" },
      { intent: "credit", amount: "10", request: crypto.randomUUID() },
      { intent: "end-sessions", session: "" },
    ];
    for (const form of forms) {
      expect([form.intent, (await act(target.id, form, cookie)).status]).toEqual([form.intent, 403]);
    }
    expect(await db.select().from(userRoles).where(eq(userRoles.userId, target.id)).get()).toBeUndefined();
  });

  it("lets support search and read a customer's page, without the admins' forms, and refuses every admin action with 403", async () => {
    const target = await createAccount();
    const targetCookie = await signIn(target, unique("ip"));
    const { cookie } = await staff("support");
    expect(await page(`${CUSTOMERS}?q=${encodeURIComponent(target.email)}`, cookie)).toContain(target.username);
    const text = await page(`${CUSTOMERS}/${target.id}`, cookie);
    expect(text).toContain(target.email);
    expect(text).not.toContain("Ban account");
    expect(text).not.toContain("Change role");
    const [session] = await db.select().from(sessions).where(eq(sessions.userId, target.id)).all();
    const forms: Record<string, string>[] = [
      { intent: "ban", reason: "fraud" },
      { intent: "unban" },
      { intent: "end-sessions", session: "" },
      { intent: "end-sessions", session: session!.publicId },
      { intent: "credit", amount: "10", request: crypto.randomUUID() },
      { intent: "role", role: "support" },
    ];
    for (const form of forms) expect([form, (await act(target.id, form, cookie)).status]).toEqual([form, 403]);
    expect(await db.select({ bannedAt: users.bannedAt }).from(users).where(eq(users.id, target.id)).get()).toEqual({ bannedAt: null });
    expect((await call("/dashboard", { cookie: targetCookie })).status).toBe(200);
    expect(await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, target.id)).get()).toBeUndefined();
  });

  it("reads a subscription's expiry as its member does: a weekly key never used is not 'no expiry'", async () => {
    const member = await createAccount();
    await boughtKey("1 Week", member.email);
    const { cookie } = await staff("support");
    const text = await page(`${CUSTOMERS}/${member.id}`, cookie);
    expect(text).toContain("Expires: Not activated — 7 days from first use");
    expect(text).not.toContain("No expiry");
  });

  it("lists a licence's history: bought, extended and upgraded, each with its order", async () => {
    const member = await createAccount();
    const { key, order } = await boughtKey("1 Week", member.email);
    expect((await validate({ key, hwid: hwid(), nonce: crypto.randomUUID() })).json.code).toBe("VALID");
    const licence = (await db.select().from(licences).where(eq(licences.key, key)).get())!;
    const paid = (variantTitle: string, price: string) => {
      const renewal = paidOrderPayload({ variant: nextId(), variantTitle, price }, { email: member.email, namePrefix: "#R" });
      return { ...renewal, note_attributes: [{ name: "_renews_licence", value: String(licence.id) }] };
    };
    const renewal = paid("1 Week", "29.99");
    await deliver("orders/paid", renewal);
    const upgrade = paid("30 Days", "89.99");
    await deliver("orders/paid", upgrade);
    const { cookie } = await staff("support");
    const html = (await (await call(`${CUSTOMERS}/${member.id}`, { cookie })).text()).replaceAll("<!-- -->", "");
    const history = textOf(/<ol[^>]*aria-label="History"[\s\S]*?<\/ol>/.exec(html)![0]);
    expect(history).toMatch(
      new RegExp(
        `Bought \\(Weekly\\).*${order.name}.*Extended.*\\$29\\.99.*${renewal.name}.*Upgraded to Monthly.*\\$89\\.99.*${upgrade.name}`,
      ),
    );
    expect(html).toContain(`href="/dashboard/orders/shopify/${upgrade.id}"`);
  });

  it("labels each staff page in the sidebar with who may open it, true for the viewer", async () => {
    const linkOf = (html: string, href: string) => new RegExp(`<a[^>]*href="${href}"[\\s\\S]*?</a>`).exec(html)?.[0] ?? "";
    const admin = await (await call("/dashboard", { cookie: (await staff("admin")).cookie })).text();
    expect(linkOf(admin, "/dashboard/orders")).toContain('aria-label="Staff only"');
    expect(linkOf(admin, "/dashboard/manage-codes")).toContain('aria-label="Admins only"');
    const support = await (await call("/dashboard", { cookie: (await staff("support")).cookie })).text();
    expect(linkOf(support, "/dashboard/orders")).toContain('aria-label="Staff only"');
    expect(support).not.toContain("Admin only");
    expect(support).not.toContain('href="/dashboard/manage-codes"');
  });

  it("answers 404 for an account that does not exist", async () => {
    const { cookie } = await staff("admin");
    expect((await call(`${CUSTOMERS}/${crypto.randomUUID()}`, { cookie })).status).toBe(404);
    expect((await act(crypto.randomUUID(), { intent: "ban", reason: "x" }, cookie)).status).toBe(404);
  });
});

describe("the customer search", () => {
  it("finds an account by its e-mail (any case), the start of it, and its username", async () => {
    const target = await createAccount();
    const { cookie } = await staff("support");
    for (const q of [
      target.email.toUpperCase(),
      target.email.slice(0, target.email.indexOf("@") + 2),
      target.username.toUpperCase(),
      target.username.slice(0, -2),
    ]) {
      const html = await (await call(`${CUSTOMERS}?q=${encodeURIComponent(q)}`, { cookie })).text();
      expect([q, html.includes(`href="${CUSTOMERS}/${target.id}"`)]).toEqual([q, true]);
    }
    const none = await page(`${CUSTOMERS}?q=${unique("nobody")}`, cookie);
    expect(none).toContain("No customer matches");
  });

  it("finds the holder of a key and the owner of a PC, and a buyer without an account by e-mail", async () => {
    const buyer = await createAccount();
    const { key } = await boughtKey("1 Week", buyer.email);
    const pc = hwid();
    expect((await validate({ key, hwid: pc, nonce: crypto.randomUUID() })).json.code).toBe("VALID");
    const guest = await boughtKey("1 Week", `${unique("guest")}@example.test`);
    const { cookie } = await staff("support");
    expect(await page(`${CUSTOMERS}?q=${encodeURIComponent(key)}`, cookie)).toContain(buyer.username);
    expect(await page(`${CUSTOMERS}?q=${encodeURIComponent(pc)}`, cookie)).toContain(buyer.username);
    const found = await page(`${CUSTOMERS}?q=${encodeURIComponent(guest.email)}`, cookie);
    expect(found).toContain(guest.email);
    expect(found).toContain("No account");
    const byKey = await page(`${CUSTOMERS}?q=${encodeURIComponent(guest.key)}`, cookie);
    expect(byKey).toContain(guest.email);

    // The buyer's page by e-mail: their order (linked by source and reference) and the key, masked.
    const buyerPage = await (await call(`${CUSTOMERS}/email/${encodeURIComponent(guest.email)}`, { cookie })).text();
    expect(buyerPage).toContain(`/dashboard/orders/shopify/${guest.orderId}`);
    expect(buyerPage).not.toContain(guest.key);
    expect(textOf(buyerPage)).toContain(`${guest.key.slice(0, 4)}…${guest.key.slice(-4)}`);
    // An e-mail that belongs to an account leads to the account's page.
    const redirect = await call(`${CUSTOMERS}/email/${encodeURIComponent(buyer.email.toUpperCase())}`, { cookie });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("Location")).toBe(`${CUSTOMERS}/${buyer.id}`);
    expect((await call(`${CUSTOMERS}/email/not-an-email`, { cookie })).status).toBe(404);
  });

  it("lists accounts newest first, a page at a time, and answers a forged cursor calmly", async () => {
    // Accounts from the far future, so they are the newest whatever else the database holds.
    const base = Date.now() + 10 * 365 * 24 * 60 * 60 * 1000 + Math.floor(Math.random() * 1e9);
    const made: string[] = [];
    for (let i = 0; i < 27; i++) {
      const id = crypto.randomUUID();
      const username = unique("paged");
      await db.batch([
        db.insert(users).values({ id, email: `${username}@example.test`, emailVerifiedAt: base, createdAt: base + i }),
        db.insert(profiles).values({ id, username, createdAt: base + i }),
      ]);
      made.unshift(username);
    }
    const { cookie } = await staff("support");
    const first = await (await call(CUSTOMERS, { cookie })).text();
    const order = (html: string) => made.filter((name) => html.includes(name)).sort((a, b) => html.indexOf(a) - html.indexOf(b));
    expect(order(first)).toEqual(made.slice(0, 25));
    const cursor = /\?cursor=([^"]+)"/.exec(first)?.[1];
    expect(cursor).toBeDefined();
    expect(first).toContain("Newest accounts");
    const second = await (await call(`${CUSTOMERS}?cursor=${cursor!}`, { cookie })).text();
    expect(order(second)).toEqual(made.slice(25));
    // The second page says so, and leads back to the first.
    expect(second).toContain("Older accounts");
    expect(second).toMatch(/<a[^>]*href="\/dashboard\/customers"[^>]*>← Newest<\/a>/);
    const forged = await call(`${CUSTOMERS}?cursor=${encodeURIComponent("1'; drop table users")}`, { cookie });
    expect(forged.status).toBe(200);
    expect(textOf(await forged.text())).toContain("That page does not exist");
  });
});

describe("an account's orders on its customer page", () => {
  it("lists the orders placed with its e-mail (any case) or by it, each once, newest first, and no one else's", async () => {
    const member = await createAccount();
    const now = Date.now();
    const [manual] = await db
      .insert(manualOrders)
      .values({ email: member.email.toUpperCase(), variantId: "v", variantTitle: "Plan", reason: "test", createdAt: now - 3000 })
      .returning({ id: manualOrders.id });
    const byAccount = await cryptoOrder({ customerEmail: `${unique("other")}@example.test`, userId: member.id, createdAt: now - 2000 });
    const both = await cryptoOrder({ customerEmail: member.email, userId: member.id, createdAt: now - 1000 });
    const someoneElse = await cryptoOrder({ createdAt: now });
    const { cookie } = await staff("support");
    const html = await (await call(`${CUSTOMERS}/${member.id}`, { cookie })).text();
    const links = [...html.matchAll(/href="\/dashboard\/orders\/(\w+)\/([^"]+)"/g)].map((m) => `${m[1]}:${m[2]}`);
    const orders = [`crypto:${both.orderNumber}`, `crypto:${byAccount.orderNumber}`, `admin:${manual!.id}`];
    expect([...new Set(links)]).toEqual(orders);
    // Found both by its e-mail and by its account, the order is drawn as often as one found once.
    const drawn = (order: string) => links.filter((link) => link === order).length;
    expect(drawn(orders[0]!)).toBe(drawn(orders[1]!));
    expect(links).not.toContain(`crypto:${someoneElse.orderNumber}`);
  });
});

describe("banning an account", () => {
  it("ends its sessions at once, refuses every sign-in with the reason it is suspended, and lifts with an unban", async () => {
    const target = await createAccount();
    const targetCookie = await signIn(target, unique("ip"));
    const { account: admin, cookie } = await staff("admin");

    const noReason = await act(target.id, { intent: "ban", reason: "  " }, cookie);
    expect(noReason.status).toBe(400);
    expect(await noReason.text()).toContain("Please give a reason");

    const banned = await act(target.id, { intent: "ban", reason: "Chargeback fraud" }, cookie, "192.0.2.7");
    expect(banned.status).toBe(200);
    expect(await db.select().from(sessions).where(eq(sessions.userId, target.id)).all()).toEqual([]);
    expect((await call("/dashboard", { cookie: targetCookie })).status).toBe(302);
    expect(await auditsOf(target.id, "customer.ban")).toMatchObject([
      { actorUserId: admin.id, ip: "192.0.2.7", detail: expect.stringContaining("Chargeback fraud") },
    ]);
    expect(await page(`${CUSTOMERS}/${target.id}`, cookie)).toContain("Chargeback fraud");
    expect((await act(target.id, { intent: "ban", reason: "again" }, cookie)).status).toBe(409);

    const refused = await login(target);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain(SUSPENDED);
    expect(cookieFrom(refused, "__Host-session")).toBeNull();
    expect(await db.select().from(sessions).where(eq(sessions.userId, target.id)).all()).toEqual([]);
    expect(await auditsOf(target.id, "sign-in.banned")).toHaveLength(1);

    expect((await act(target.id, { intent: "unban" }, cookie)).status).toBe(200);
    expect(await auditsOf(target.id, "customer.unban")).toHaveLength(1);
    expect((await call("/dashboard", { cookie: await signIn(target, unique("ip")) })).status).toBe(200);
    expect((await act(target.id, { intent: "unban" }, cookie)).status).toBe(409);
  });

  it("refuses a passkey sign-in of a banned account, and opens no session", async () => {
    const target = await createAccount();
    const authenticator = new SoftwareAuthenticator();
    expect((await addPasskey(await signIn(target, unique("ip")), authenticator)).response.status).toBe(200);
    const { cookie } = await staff("admin");
    expect((await act(target.id, { intent: "ban", reason: "Abuse" }, cookie)).status).toBe(200);
    const { response } = await passkeySignIn(authenticator);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain(SUSPENDED);
    expect(cookieFrom(response, "__Host-session")).toBeNull();
    expect(await db.select().from(sessions).where(eq(sessions.userId, target.id)).all()).toEqual([]);
  });

  it("refuses the second step of a sign-in that was waiting when the ban came", async () => {
    const { secret, account: target } = await enrolledMember();
    const ip = unique("ip");
    const step = await login(target, ip);
    const challenge = cookieFrom(step, "__Host-2fa");
    expect(challenge).not.toBeNull();
    const { cookie } = await staff("admin");
    expect((await act(target.id, { intent: "ban", reason: "Abuse" }, cookie)).status).toBe(200);
    const second = await call("/auth/2fa", { form: { code: totp(secret) }, cookie: challenge!, ip });
    expect(second.headers.get("Location")).toBe("/auth");
    expect(cookieFrom(second, "__Host-session")).toBeNull();
    // The ban ended the waiting sign-in: it has to start over, and starting over is refused below.
    const told = await call("/api/viewer", { cookie: cookieFrom(second, "__Host-toast")! });
    expect((await told.json()) as object).toMatchObject({ toast: { title: "Sign in again" } });
    expect(await db.select().from(sessions).where(eq(sessions.userId, target.id)).all()).toEqual([]);
    // A new password step is refused before any second step starts.
    const again = await login(target);
    expect(again.status).toBe(403);
    expect(await again.text()).toContain(SUSPENDED);
    expect(cookieFrom(again, "__Host-2fa")).toBeNull();
  });

  it("refuses a second step that races the ban (the challenge outlived it): no session, told it is suspended", async () => {
    const { secret, account: target } = await enrolledMember();
    const ip = unique("ip");
    const challenge = cookieFrom(await login(target, ip), "__Host-2fa");
    await db.update(users).set({ bannedAt: Date.now(), banReason: "race" }).where(eq(users.id, target.id));
    const second = await call("/auth/2fa", { form: { code: totp(secret) }, cookie: challenge!, ip });
    expect(cookieFrom(second, "__Host-session")).toBeNull();
    expect(await db.select().from(sessions).where(eq(sessions.userId, target.id)).all()).toEqual([]);
    const told = await call("/api/viewer", { cookie: cookieFrom(second, "__Host-toast")! });
    expect((await told.json()) as object).toMatchObject({ toast: { title: "Account Suspended", description: SUSPENDED } });
  });

  it("refuses banning yourself or another admin", async () => {
    const { account: admin, cookie } = await staff("admin");
    const other = await createAccount({ role: "admin" });
    expect((await act(admin.id, { intent: "ban", reason: "oops" }, cookie)).status).toBe(403);
    const refused = await act(other.id, { intent: "ban", reason: "coup" }, cookie);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("make them a member first");
    for (const id of [admin.id, other.id])
      expect((await db.select({ bannedAt: users.bannedAt }).from(users).where(eq(users.id, id)).get())!.bannedAt).toBeNull();
  });
});

describe("ending a customer's sessions", () => {
  it("ends one session by its public name, then all of them, each audited", async () => {
    const target = await createAccount();
    const first = await signIn(target, unique("ip"));
    const second = await signIn(target, unique("ip"));
    const { cookie } = await staff("admin");
    const [one] = await db.select().from(sessions).where(eq(sessions.userId, target.id)).all();
    expect((await act(target.id, { intent: "end-sessions", session: one!.publicId }, cookie)).status).toBe(200);
    expect(await db.select().from(sessions).where(eq(sessions.userId, target.id)).all()).toHaveLength(1);
    expect((await act(target.id, { intent: "end-sessions", session: one!.publicId }, cookie)).status).toBe(404);
    // Another account's session cannot be ended through this page.
    const bystander = await createAccount();
    await signIn(bystander, unique("ip"));
    const [theirs] = await db.select().from(sessions).where(eq(sessions.userId, bystander.id)).all();
    expect((await act(target.id, { intent: "end-sessions", session: theirs!.publicId }, cookie)).status).toBe(404);
    expect(await db.select().from(sessions).where(eq(sessions.userId, bystander.id)).all()).toHaveLength(1);

    expect((await act(target.id, { intent: "end-sessions", session: "" }, cookie)).status).toBe(200);
    for (const c of [first, second]) expect((await call("/dashboard", { cookie: c })).status).toBe(302);
    expect(await auditsOf(target.id, "customer.end-sessions")).toHaveLength(2);
  });
});

describe("crediting a reseller's balance (moved here from the reseller panel)", () => {
  it("shows the account's authenticator app, passkeys and sessions as they stand", async () => {
    const { account: target } = await enrolledMember();
    const { cookie } = await staff("support");
    const before = await page(`${CUSTOMERS}/${target.id}`, cookie);
    const codes = Number(/Authenticator app On · (\d+) recovery code\(s\) left/.exec(before)?.[1]);
    expect(codes).toBeGreaterThan(1);
    expect(before).toContain("Passkeys 0");
    expect(before).toContain("Not signed in anywhere.");

    const [code] = await db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, target.id)).limit(1);
    await db.update(recoveryCodes).set({ usedAt: Date.now() }).where(eq(recoveryCodes.id, code!.id));
    await db.insert(passkeys).values({
      id: unique("passkey"),
      userId: target.id,
      name: "Laptop",
      publicKey: "key",
      counter: 0,
      deviceType: "singleDevice",
      backedUp: false,
      createdAt: Date.now(),
    });
    const firefox = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
    await createSession(db, target.id, callerOf(new Request(ORIGIN, { headers: { "User-Agent": firefox } })));
    const after = await page(`${CUSTOMERS}/${target.id}`, cookie);
    expect(after).toContain(`Authenticator app On · ${codes - 1} recovery code(s) left`);
    expect(after).toContain("Passkeys 1");
    expect(after).toContain("Firefox on Windows");
    expect(after).not.toContain("Not signed in anywhere.");
  });

  it("credits the account by its id, writes a ledger row and an audit entry, and shows the new balance", async () => {
    const target = await createAccount();
    const { account: admin, cookie } = await staff("admin");
    const request = crypto.randomUUID();
    const response = await act(target.id, { intent: "credit", amount: "100.25", request }, cookie, "192.0.2.9");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("$100.25");
    expect((await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, target.id)).get())!.balanceCents).toBe(10_025);
    expect(await db.select().from(resellerLedger).where(eq(resellerLedger.userId, target.id)).all()).toMatchObject([
      { kind: "credit", amountCents: 10_025, reference: request },
    ]);
    expect(await auditsOf(target.id, "reseller.credit")).toMatchObject([{ actorUserId: admin.id, ip: "192.0.2.9" }]);
    const text = await page(`${CUSTOMERS}/${target.id}`, cookie);
    expect(text).toContain("$100.25");
    expect(text).toContain("Credited by the shop");
  });

  it("credits once when the same form is sent twice, even at once, and again for a fresh form", async () => {
    const target = await createAccount();
    const { cookie } = await staff("admin");
    const form = { intent: "credit", amount: "25", request: crypto.randomUUID() };
    const statuses = (await Promise.all([act(target.id, form, cookie), act(target.id, form, cookie)])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    const again = await act(target.id, form, cookie);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already made");
    expect((await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, target.id)).get())!.balanceCents).toBe(2500);
    expect(await auditsOf(target.id, "reseller.credit")).toHaveLength(1);
    // The page hands out a new id for the next credit.
    const next = /name="request" value="([0-9a-f-]{36})"/.exec(await (await call(`${CUSTOMERS}/${target.id}`, { cookie })).text())?.[1];
    expect(next).toBeDefined();
    expect(next).not.toBe(form.request);
    expect((await act(target.id, { ...form, request: next! }, cookie)).status).toBe(200);
    expect((await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, target.id)).get())!.balanceCents).toBe(5000);
  });

  it("checks the amount, and the reseller panel no longer takes a credit", async () => {
    const target = await createAccount();
    const { cookie } = await staff("admin");
    for (const [amount, message] of [
      ["12.345", "Please enter a valid amount"],
      ["ten", "Please enter a valid amount"],
      ["0", "Please enter a valid amount"],
      ["10001", "Amounts can be at most $10000"],
    ]) {
      const response = await act(target.id, { intent: "credit", amount: amount!, request: crypto.randomUUID() }, cookie);
      expect([amount, response.status]).toEqual([amount, 400]);
      expect(await response.text()).toContain(message);
    }
    for (const request of [undefined, "", "not-an-id"]) {
      const response = await act(target.id, { intent: "credit", amount: "10", ...(request === undefined ? {} : { request }) }, cookie);
      expect([request, response.status]).toEqual([request, 400]);
      expect(await response.text()).toContain("This form is out of date; reload the page");
    }
    const old = await call("/dashboard/resell", { form: { intent: "credit", account: target.username, amount: "100" }, cookie });
    expect(old.status).toBe(400);
    expect(await db.select().from(resellerLedger).where(eq(resellerLedger.userId, target.id)).all()).toEqual([]);
  });
});

describe("assigning roles", () => {
  it("makes a member support (the customers pages open at their next request), then a member again, audited from and to", async () => {
    const target = await createAccount();
    const targetCookie = await signIn(target, unique("ip"));
    const { account: admin, cookie } = await staff("admin");
    expect((await call(CUSTOMERS, { cookie: targetCookie })).status).toBe(403);
    expect((await act(target.id, { intent: "role", role: "support" }, cookie)).status).toBe(200);
    expect((await call(CUSTOMERS, { cookie: targetCookie })).status).toBe(200);
    expect((await act(target.id, { intent: "role", role: "support" }, cookie)).status).toBe(409);
    expect((await act(target.id, { intent: "role", role: "member" }, cookie)).status).toBe(200);
    expect((await call(CUSTOMERS, { cookie: targetCookie })).status).toBe(403);
    expect(await db.select().from(userRoles).where(eq(userRoles.userId, target.id)).get()).toBeUndefined();
    const changes = await auditsOf(target.id, "customer.role");
    expect(changes.map((row) => JSON.parse(row.detail!))).toEqual([
      { from: "support", to: "member" },
      { from: "member", to: "support" },
    ]);
    expect(changes[0]!.actorUserId).toBe(admin.id);
    const bad = await act(target.id, { intent: "role", role: "owner" }, cookie);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Choose Member, Support or Admin");
  });

  it("refuses an admin's change of their own role", async () => {
    const { account: admin, cookie } = await staff("admin");
    expect((await act(admin.id, { intent: "role", role: "member" }, cookie)).status).toBe(403);
    expect(await db.select({ role: userRoles.role }).from(userRoles).where(eq(userRoles.userId, admin.id)).get()).toEqual({
      role: "admin",
    });
  });
});

describe("audited events", () => {
  it("records staff sign-ins, and no such entry for members", async () => {
    const { account: support } = await staff("support");
    const member = await createAccount();
    await signIn(member, unique("ip"));
    expect(await auditsOf(support.id, "staff.sign-in")).toMatchObject([
      { actorUserId: support.id, detail: JSON.stringify({ role: "support" }) },
    ]);
    expect(await auditsOf(member.id, "staff.sign-in")).toEqual([]);
  });

  it("records webhook deliveries refused for a bad signature or an oversized body, once a minute per sender, under a fixed subject", async () => {
    const topic = `orders/${unique("topic")}`;
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const headers = {
      "X-Shopify-Topic": topic,
      "X-Shopify-Hmac-Sha256": "forged",
      "Content-Type": "application/json",
      "CF-Connecting-IP": ip,
    };
    const rejections = () =>
      db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "webhook.rejected"), eq(auditLog.ip, ip)))
        .all();
    expect((await fetchWebhook(JSON.stringify({ id: 1 }), headers)).status).toBe(401);
    expect(await rejections()).toMatchObject([
      { actorUserId: null, subject: "shopify-webhook", detail: JSON.stringify({ reason: "Invalid signature", topic }) },
    ]);
    // A sender cannot flood the log, nor make an entry claim to be about an order.
    for (let i = 0; i < 3; i++) expect((await fetchWebhook("{}", { ...headers, "X-Shopify-Topic": "shopify:1001" })).status).toBe(401);
    expect(await rejections()).toHaveLength(1);
    const otherIp = `${ip}0`;
    const big = await fetchWebhook("x".repeat(2 * 1024 * 1024), {
      ...headers,
      "CF-Connecting-IP": otherIp,
      "X-Shopify-Topic": "<b>orders/paid</b>",
    });
    expect(big.status).toBe(413);
    const [oversize] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "webhook.rejected"), eq(auditLog.ip, otherIp)))
      .all();
    expect(oversize).toMatchObject({ subject: "shopify-webhook" });
    expect(JSON.parse(oversize!.detail!).topic).toBe("borders/paid/b");
  });
});

const totp = (secret: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate();

/** A member with the authenticator app on, enrolled a minute ago so the next code is fresh. */
async function enrolledMember() {
  const account = await createAccount();
  const viewer = { id: account.id, email: account.email, username: account.username, avatarUrl: null, role: null };
  const at = Date.now() - 60_000;
  const started = await startEnrolment(db, env.TOTP_ENCRYPTION_KEY, viewer, at);
  if (!started.ok) throw new Error(started.problem.message);
  const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(started.value.secret), digits: 6, period: 30 }).generate({
    timestamp: at,
  });
  const confirmed = await confirmEnrolment(
    { db, sessionsEnded: async () => {} },
    env.TOTP_ENCRYPTION_KEY,
    viewer,
    callerOf(new Request(ORIGIN)),
    code,
    at,
  );
  if (!confirmed.ok) throw new Error(confirmed.problem.message);
  return { account, secret: started.value.secret };
}

function fetchWebhook(body: string, headers: Record<string, string>) {
  return exports.default.fetch(new Request(`${ORIGIN}/webhooks/shopify`, { method: "POST", headers, body }));
}
