// Revoking many keys at once (decision 104): the preview names the working licences the revocation
// stops, the revocation stops exactly those, and Undo makes them work again as they were, once,
// within the hour, except a licence something else changed since, which it names and leaves alone.
import { and, eq, inArray, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, bulkChanges, licences, productCodes, userSubscriptions } from "~/server/platform/db/schema.server";
import { boughtKey, call, createAccount, db, hwid, latestBulkToken, signIn, unique, validate } from "../helpers";

const LICENCES = "/dashboard/licences";

const check = async (key: string, pc: string) =>
  ((await validate({ key, hwid: pc, nonce: crypto.randomUUID() })).json as { code: string }).code;

async function staff(role: "admin" | "support" = "admin") {
  const account = await createAccount({ role });
  return { account, cookie: await signIn(account, unique("ip")) };
}

const post = (form: Record<string, string>, cookie: string) => call(LICENCES, { form, cookie });

async function preview(keys: string[], who: { account: { id: string }; cookie: string }, reason = "Leaked on a forum") {
  const response = await post({ intent: "revoke-preview", keys: keys.join("\n"), reason }, who.cookie);
  return { response, text: await response.text(), token: response.status === 200 ? await latestBulkToken(who.account.id) : "" };
}

/** Three keys bought by two members, each activated on a PC. */
async function keys() {
  const alice = await createAccount();
  const bob = await createAccount();
  const bought = [await boughtKey("1 Week", alice.email), await boughtKey("30 Days", alice.email), await boughtKey("1 Week", bob.email)];
  const pcs = bought.map(() => hwid());
  for (const [i, k] of bought.entries()) expect(await check(k.key, pcs[i]!)).toBe("VALID");
  return { alice, bob, bought, pcs, list: bought.map((k) => k.key) };
}

const subscriptionsOf = async (keys: string[]) =>
  (
    await db
      .select({ status: userSubscriptions.status })
      .from(userSubscriptions)
      .innerJoin(productCodes, eq(productCodes.id, userSubscriptions.productCodeId))
      .where(inArray(productCodes.code, keys))
      .orderBy(productCodes.code)
  ).map((row) => row.status);

describe("revoking many keys at once", () => {
  it("previews the working licences, revokes exactly those, and Undo brings back all but one changed since, once", async () => {
    const { bought, pcs, list, alice } = await keys();
    const who = await staff();
    const previewed = await preview([...list, "NO-SUCH-KEY"], who);
    expect(previewed.response.status).toBe(200);
    expect(previewed.text).toContain("3 licences would be revoked");
    expect(previewed.text).toContain(alice.email);
    expect(previewed.text).toContain("1 other key is unknown or revoked already");
    // A preview changes nothing.
    expect(await check(list[0]!, pcs[0]!)).toBe("VALID");

    const revoked = await post({ intent: "revoke-many", token: previewed.token }, who.cookie);
    expect(revoked.status).toBe(200);
    expect(await revoked.text()).toContain("3 licences revoked");
    for (const [i, key] of list.entries()) expect(await check(key, pcs[i]!)).toBe("REVOKED");
    expect(await subscriptionsOf(list)).toEqual(["revoked", "revoked", "revoked"]);
    const codes = await db.select({ revokedAt: productCodes.revokedAt }).from(productCodes).where(inArray(productCodes.code, list));
    expect(codes.every((code) => code.revokedAt !== null)).toBe(true);

    // Something else changes one of them meanwhile: it stays as it is, and the undo says so.
    await db.update(licences).set({ bannedAt: Date.now(), banReason: "Cheating" }).where(eq(licences.key, bought[2]!.key));

    const undone = await post({ intent: "revoke-undo", token: previewed.token }, who.cookie);
    expect(undone.status).toBe(200);
    const text = await undone.text();
    expect(text).toContain("2 licences work again as before");
    expect(text).toContain("1 licence skipped: changed since the revocation");
    expect(await check(list[0]!, pcs[0]!)).toBe("VALID");
    expect(await check(list[1]!, pcs[1]!)).toBe("VALID");
    expect(await check(list[2]!, pcs[2]!)).not.toBe("VALID");
    const statuses = await subscriptionsOf(list);
    expect(statuses.filter((status) => status === "active")).toHaveLength(2);

    // Undo twice (a double click, another admin) is refused and changes nothing.
    const other = await staff();
    const twice = await post({ intent: "revoke-undo", token: previewed.token }, other.cookie);
    expect(twice.status).toBe(409);
    expect(await twice.text()).toContain("already undone");
    expect(await check(list[2]!, pcs[2]!)).not.toBe("VALID");

    const logged = await db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.subject, `bulk:${previewed.token}`), like(auditLog.action, "licence.bulk-revoke%")))
      .orderBy(auditLog.id);
    expect(logged.map((row) => row.action)).toEqual(["licence.bulk-revoke", "licence.bulk-revoke.undo"]);
  });

  it("refuses a revocation whose licences changed after the preview, and a second confirmation", async () => {
    const { list, pcs } = await keys();
    const who = await staff();
    const previewed = await preview(list, who);
    // One key's PC is reset meanwhile: the licences are no longer as previewed.
    const licence = await db.select().from(licences).where(eq(licences.key, list[0]!)).get();
    expect((await post({ intent: "reset-hwid", licenceId: String(licence!.id) }, who.cookie)).status).toBe(200);
    const refused = await post({ intent: "revoke-many", token: previewed.token }, who.cookie);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("changed since the preview");
    expect(await check(list[1]!, pcs[1]!)).toBe("VALID");

    const fresh = await preview(list, who);
    expect((await post({ intent: "revoke-many", token: fresh.token }, who.cookie)).status).toBe(200);
    expect((await post({ intent: "revoke-many", token: fresh.token }, who.cookie)).status).toBe(409);
  });

  it("refuses to undo after the hour", async () => {
    const { list, pcs } = await keys();
    const who = await staff();
    const previewed = await preview(list, who);
    expect((await post({ intent: "revoke-many", token: previewed.token }, who.cookie)).status).toBe(200);
    await db
      .update(bulkChanges)
      .set({ undoUntil: Date.now() - 1 })
      .where(eq(bulkChanges.id, previewed.token));
    const late = await post({ intent: "revoke-undo", token: previewed.token }, who.cookie);
    expect(late.status).toBe(409);
    expect(await late.text()).toContain("can no longer be undone");
    expect(await check(list[0]!, pcs[0]!)).toBe("REVOKED");
  });

  it("refuses every step to support, who may not revoke keys", async () => {
    const { list, pcs } = await keys();
    const who = await staff();
    const previewed = await preview(list, who);
    const support = await staff("support");
    for (const form of <Record<string, string>[]>[
      { intent: "revoke-preview", keys: list.join("\n"), reason: "x" },
      { intent: "revoke-many", token: previewed.token },
    ]) {
      expect([form.intent, (await post(form, support.cookie)).status]).toEqual([form.intent, 403]);
    }
    expect(await check(list[0]!, pcs[0]!)).toBe("VALID");
    expect((await post({ intent: "revoke-many", token: previewed.token }, who.cookie)).status).toBe(200);
    expect((await post({ intent: "revoke-undo", token: previewed.token }, support.cookie)).status).toBe(403);
    expect(await check(list[0]!, pcs[0]!)).toBe("REVOKED");
  });
});
