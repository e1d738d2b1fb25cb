// Licences in the hub: the owner's Reset PC on the Subscriptions page (and the reseller's, for the
// keys they generated), the admin's licence page, and what the licence API answers afterwards.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, licenceResets, licences, resellerAccounts } from "~/server/platform/db/schema.server";
import { boughtKey, call, createAccount, db, hwid, signIn, unique, validate } from "../helpers";

const SUBSCRIPTIONS = "/dashboard/subscriptions";
const LICENCES = "/dashboard/licences";
const DAY_SECONDS = 24 * 60 * 60;

const codeFor = async (key: string, pc: string) => (await validate({ key, hwid: pc, nonce: crypto.randomUUID() })).json.code as string;
const licenceOf = async (key: string) => (await db.select().from(licences).where(eq(licences.key, key)).get())!;
const resetsOf = (licenceId: number) => db.select().from(licenceResets).where(eq(licenceResets.licenceId, licenceId));

/** A page's text as a reader sees it: tags gone, spaces collapsed. */
const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<[^>]+>/g, "")
    .replace(/\s+/g, " ");

/** A member who bought a weekly key, and that key bound to a first PC. */
async function memberWithBoundKey() {
  const account = await createAccount();
  const cookie = await signIn(account, unique("ip"));
  const { key } = await boughtKey("1 Week", account.email);
  const pc = hwid();
  expect(await codeFor(key, pc)).toBe("VALID");
  return { account, cookie, key, pc, licence: await licenceOf(key) };
}

const resetOwn = (licenceId: number, cookie: string) =>
  call(SUBSCRIPTIONS, { form: { intent: "reset-hwid", licenceId: String(licenceId) }, cookie });

async function adminCookie() {
  return signIn(await createAccount({ admin: true }), unique("ip"));
}

const manage = (form: Record<string, string>, cookie: string) => call(LICENCES, { form, cookie });

describe("the owner's Reset PC", () => {
  it("is what the support page's FAQ points members to when they change PCs", async () => {
    const faq = await (await call(`/support?faq=${unique("f")}`)).text();
    expect(faq).toContain("Can I use it on multiple PCs?");
    expect(faq).toContain("reset it yourself under Dashboard → Subscriptions");
  });

  it("frees the PC, so the next validation from a new PC answers VALID", async () => {
    const { account, cookie, key, pc, licence } = await memberWithBoundKey();
    const newPc = hwid();
    expect(await codeFor(key, newPc)).toBe("HWID_MISMATCH");

    const response = await resetOwn(licence.id, cookie);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("PC reset");
    expect(await codeFor(key, newPc)).toBe("VALID");
    expect(await codeFor(key, pc)).toBe("HWID_MISMATCH");
    expect(await resetsOf(licence.id)).toMatchObject([{ by: "owner", previousHwid: pc }]);
    // Written to the audit log, with the owner as actor and the client address.
    const logged = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subject, `licence:${licence.id}`), eq(auditLog.action, "licence.owner-reset")))
      .all();
    expect(logged).toMatchObject([{ actorUserId: account.id, ip: "198.51.100.1" }]);
    // The log names the key by its licence; support reads it, so the key itself is masked.
    expect(logged[0]!.detail).not.toContain(key);

    const page = textOf(await (await call(SUBSCRIPTIONS, { cookie })).text());
    expect(page).toContain("by you");
    expect(page).toContain("Next reset possible on");
  });

  it("refuses a second reset inside the cooldown with 429 and Retry-After, and changes nothing", async () => {
    const { cookie, key, licence } = await memberWithBoundKey();
    expect((await resetOwn(licence.id, cookie)).status).toBe(200);
    const newPc = hwid();
    expect(await codeFor(key, newPc)).toBe("VALID");

    const again = await resetOwn(licence.id, cookie);
    expect(again.status).toBe(429);
    const retryAfter = Number(again.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(6 * DAY_SECONDS);
    expect(retryAfter).toBeLessThanOrEqual(7 * DAY_SECONDS);
    expect((await licenceOf(key)).hwid).toBe(newPc);
    expect(await resetsOf(licence.id)).toHaveLength(1);
    expect(await codeFor(key, newPc)).toBe("VALID");
  });

  it("lets only one of two resets sent at once through", async () => {
    const { cookie, licence } = await memberWithBoundKey();
    const statuses = (await Promise.all([resetOwn(licence.id, cookie), resetOwn(licence.id, cookie)])).map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect(statuses[1]).not.toBe(200);
    expect(await resetsOf(licence.id)).toHaveLength(1);
  });

  it("answers 404 for someone else's licence and changes nothing", async () => {
    const { key, pc, licence } = await memberWithBoundKey();
    const stranger = await signIn(await createAccount(), unique("ip"));
    expect((await resetOwn(licence.id, stranger)).status).toBe(404);
    expect((await licenceOf(key)).hwid).toBe(pc);
    expect(await resetsOf(licence.id)).toHaveLength(0);
  });
});

describe("the Subscriptions page", () => {
  it("shows an unactivated weekly key as waiting for its first use, never as running forever", async () => {
    const account = await createAccount();
    const { key } = await boughtKey("1 Week", account.email);
    const page = textOf(await (await call(SUBSCRIPTIONS, { cookie: await signIn(account, unique("ip")) })).text());
    expect(page).toContain(key);
    expect(page).toContain("Expires: Not activated — 7 days from first use");
    expect(page).not.toContain("Expires: Never");
    expect(page).toContain("No PC bound");
    expect(page).toContain("Never checked");
    // Nothing is bound, so there is nothing to reset.
    expect(page).not.toContain("Reset PC");
  });

  it("shows an activated key's expiry, its shortened PC and the Reset PC button", async () => {
    const { cookie, pc } = await memberWithBoundKey();
    const page = textOf(await (await call(SUBSCRIPTIONS, { cookie })).text());
    expect(page).toMatch(/Licence ?Active until [A-Z][a-z]{2} \d{2}, \d{4}/);
    expect(page).toContain(`${pc.slice(0, 8)}…${pc.slice(-4)}`);
    expect(page).not.toContain(pc);
    expect(page).toContain("Reset PC");
  });
});

describe("the reseller panel", () => {
  it("shows each generated key's licence, and lets the reseller reset a customer's PC", async () => {
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    await call("/dashboard/resell", { cookie }); // the first visit opens the account
    await db.update(resellerAccounts).set({ balanceCents: 100_000 }).where(eq(resellerAccounts.userId, account.id));
    expect((await call("/dashboard/resell", { form: { intent: "generate", quantity: "5", keyType: "weekly" }, cookie })).status).toBe(200);

    const generated = await db.select().from(licences).where(eq(licences.ownerEmail, account.email));
    expect(generated).toHaveLength(5);
    const [sold, ...unsold] = generated;
    const customerPc = hwid();
    expect(await codeFor(sold!.key, customerPc)).toBe("VALID");

    const html = await (await call("/dashboard/resell", { cookie })).text();
    // The wide screen's table (the phone's cards say the same).
    const table = html.slice(html.indexOf("<table"));
    const rowOf = (key: string) => textOf(table.slice(table.indexOf(`>${key}<`), table.indexOf("</tr>", table.indexOf(`>${key}<`))));
    expect(rowOf(sold!.key)).toMatch(/Active until [A-Z][a-z]{2} \d{2}, \d{4}/);
    expect(rowOf(sold!.key)).toContain(`${customerPc.slice(0, 8)}…${customerPc.slice(-4)}`);
    for (const key of unsold) expect(rowOf(key.key)).toContain("Not activated");

    expect((await resetOwn(sold!.id, cookie)).status).toBe(200);
    expect(await codeFor(sold!.key, hwid())).toBe("VALID");
  });
});

describe("the admin's licence page", () => {
  it("is closed to members: 403 for the page and for every action, and nothing changes", async () => {
    const { cookie, key, pc, licence } = await memberWithBoundKey();
    expect((await call(`${LICENCES}?key=${encodeURIComponent(key)}`, { cookie })).status).toBe(403);
    expect((await call(`${LICENCES}.data?key=${encodeURIComponent(key)}`, { cookie })).status).toBe(403);
    const id = String(licence.id);
    const forms: Record<string, string>[] = [
      { intent: "reset-hwid", licenceId: id },
      { intent: "ban-key", licenceId: id, reason: "testing" },
      { intent: "ban-hwid", hwid: pc, reason: "testing" },
    ];
    for (const form of forms) {
      expect([form.intent, (await manage(form, cookie)).status]).toEqual([form.intent, 403]);
    }
    expect(await licenceOf(key)).toMatchObject({ hwid: pc, bannedAt: null });
    expect(await codeFor(key, pc)).toBe("VALID");
  });

  it("lets support look keys up and reset PCs, but not ban keys or PCs (403, nothing changes, no ban forms)", async () => {
    const { key, pc, licence } = await memberWithBoundKey();
    const cookie = await signIn(await createAccount({ role: "support" }), unique("ip"));
    const page = textOf(await (await call(`${LICENCES}?key=${encodeURIComponent(key)}`, { cookie })).text());
    expect(page).toContain(pc);
    expect(page).not.toContain("Ban key");
    expect(page).not.toContain("Ban PC");
    const id = String(licence.id);
    const bans: Record<string, string>[] = [
      { intent: "ban-key", licenceId: id, reason: "testing" },
      { intent: "unban-key", licenceId: id },
      { intent: "ban-hwid", hwid: pc, reason: "testing" },
      { intent: "unban-hwid", hwid: pc },
    ];
    for (const form of bans) {
      expect([form.intent, (await manage(form, cookie)).status]).toEqual([form.intent, 403]);
    }
    expect(await licenceOf(key)).toMatchObject({ hwid: pc, bannedAt: null });
    expect(await codeFor(key, pc)).toBe("VALID");
    expect((await manage({ intent: "reset-hwid", licenceId: id }, cookie)).status).toBe(200);
    expect((await licenceOf(key)).hwid).toBeNull();
    // The key's history says the shop reset it, whichever staff role did.
    const after = textOf(await (await call(`${LICENCES}?key=${encodeURIComponent(key)}`, { cookie: await adminCookie() })).text());
    expect(after).toContain("by staff");
  });

  it("shows everything about a key, and says so when there is no such key", async () => {
    const { account, key, pc } = await memberWithBoundKey();
    const cookie = await adminCookie();
    const page = textOf(await (await call(`${LICENCES}?key=${encodeURIComponent(key)}`, { cookie })).text());
    expect(page).toContain(account.email);
    expect(page).toContain(pc);
    expect(page).toContain("Not banned");
    expect(page).toMatch(/Licence ?Active until/);
    const missing = textOf(await (await call(`${LICENCES}?key=NO-SUCH-KEY`, { cookie })).text());
    expect(missing).toContain("No licence with this key");
  });

  it("resets a PC without the owner's cooldown", async () => {
    const { cookie: owner, key, licence } = await memberWithBoundKey();
    expect((await resetOwn(licence.id, owner)).status).toBe(200);
    const admin = await adminCookie();
    for (let round = 0; round < 2; round++) {
      const pc = hwid();
      expect(await codeFor(key, pc)).toBe("VALID");
      const response = await manage({ intent: "reset-hwid", licenceId: String(licence.id) }, admin);
      expect(response.status).toBe(200);
      expect((await licenceOf(key)).hwid).toBeNull();
    }
    expect((await resetsOf(licence.id)).map((r) => r.by).sort()).toEqual(["admin", "admin", "owner"]);
    const page = textOf(await (await call(SUBSCRIPTIONS, { cookie: owner })).text());
    expect(page).toContain("by support");
  });

  it("records one reset when an admin's double click sends two at once", async () => {
    const { key, licence } = await memberWithBoundKey();
    const admin = await adminCookie();
    const form = { intent: "reset-hwid", licenceId: String(licence.id) };
    const statuses = (await Promise.all([manage(form, admin), manage(form, admin)])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    expect(await resetsOf(licence.id)).toHaveLength(1);
    expect(await codeFor(key, hwid())).toBe("VALID");
  });

  it("bans a key (BANNED on every PC) and unbans it (VALID again)", async () => {
    const { key, pc, licence } = await memberWithBoundKey();
    const admin = await adminCookie();
    expect((await manage({ intent: "ban-key", licenceId: String(licence.id), reason: "Chargeback" }, admin)).status).toBe(200);
    expect(await codeFor(key, pc)).toBe("BANNED");
    expect(await codeFor(key, hwid())).toBe("BANNED");
    expect(textOf(await (await call(`${LICENCES}?key=${encodeURIComponent(key)}`, { cookie: admin })).text())).toContain("Chargeback");
    expect((await manage({ intent: "unban-key", licenceId: String(licence.id) }, admin)).status).toBe(200);
    expect(await codeFor(key, pc)).toBe("VALID");
  });

  it("bans a PC: every key on it answers BANNED until the ban is lifted", async () => {
    const { account, key, pc } = await memberWithBoundKey();
    const { key: second } = await boughtKey("30 Days", account.email);
    expect(await codeFor(second, pc)).toBe("VALID");
    const admin = await adminCookie();
    expect((await manage({ intent: "ban-hwid", hwid: pc, reason: "Shared account" }, admin)).status).toBe(200);
    expect(await codeFor(key, pc)).toBe("BANNED");
    expect(await codeFor(second, pc)).toBe("BANNED");
    expect(textOf(await (await call(`${LICENCES}?key=${encodeURIComponent(second)}`, { cookie: admin })).text())).toContain(
      "Shared account",
    );
    expect((await manage({ intent: "unban-hwid", hwid: pc }, admin)).status).toBe(200);
    expect(await codeFor(key, pc)).toBe("VALID");
    expect(await codeFor(second, pc)).toBe("VALID");
  });

  it("refuses a ban without a reason with 400, next to the reason field, and bans nothing", async () => {
    const { key, pc, licence } = await memberWithBoundKey();
    const admin = await adminCookie();
    const forms: Record<string, string>[] = [
      { intent: "ban-key", licenceId: String(licence.id), reason: "  " },
      { intent: "ban-hwid", hwid: pc },
    ];
    for (const form of forms) {
      const response = await manage(form, admin);
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).toContain("Please give a reason");
      // The title the page gives a problem with the reason field.
      expect(text).toContain("Reason required");
    }
    expect(await codeFor(key, pc)).toBe("VALID");
  });
});
