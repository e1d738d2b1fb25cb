// Deleting unsold codes in bulk (decision 104): the preview names what the deletion takes, the
// deletion takes exactly that, and Undo puts the codes back unsold, once, within the hour, audited.
import { and, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { UNDO_WINDOW_MS } from "~/server/platform/bulk-changes.server";
import { auditLog, bulkChanges, productCodes } from "~/server/platform/db/schema.server";
import { addCodes } from "~/server/keys/stock.server";
import { call, createAccount, db, latestBulkToken, signIn, unique } from "../helpers";

const STOCK = "/dashboard/manage-codes/stock";
// A variant of its own per test, so no other test's stock is counted.
const variantOf = () => `gid://shopify/ProductVariant/bulk-${unique("v")}`;

async function admin() {
  const account = await createAccount({ admin: true });
  return { account, cookie: await signIn(account, unique("ip")) };
}

const post = (form: Record<string, string>, cookie: string) => call(STOCK, { form, cookie });

async function stock(variantId: string, codes: string[]) {
  const added = await addCodes(db, { id: variantId, title: "Bulk Product - 7 Days" }, codes.join("\n"));
  expect(added.ok).toBe(true);
}

const unsold = async (variantId: string) =>
  (
    await db
      .select({ code: productCodes.code })
      .from(productCodes)
      .where(and(eq(productCodes.variantId, variantId), eq(productCodes.isUsed, false)))
      .orderBy(productCodes.code)
  ).map((row) => row.code);

async function preview(form: Record<string, string>, who: { account: { id: string }; cookie: string }) {
  const response = await post({ intent: "bulk-preview", ...form }, who.cookie);
  return { response, text: await response.text(), token: response.status === 200 ? await latestBulkToken(who.account.id) : "" };
}

describe("deleting unsold codes in bulk", () => {
  it("previews the codes it will delete, deletes exactly those, and Undo puts them back unsold, once", async () => {
    const variantId = variantOf();
    const codes = Array.from({ length: 12 }, (_, i) => `BULK-${unique("c")}-${String(i).padStart(2, "0")}`);
    await stock(variantId, codes);
    const who = await admin();

    const previewed = await preview({ variantId, codes: "" }, who);
    expect(previewed.response.status).toBe(200);
    expect(previewed.text).toContain("12 codes would be deleted");
    // The sample names the first codes.
    expect(previewed.text).toContain(codes[0]);
    // Nothing is deleted by a preview.
    expect(await unsold(variantId)).toEqual([...codes].sort());

    const deleted = await post({ intent: "bulk-delete", token: previewed.token }, who.cookie);
    expect(deleted.status).toBe(200);
    expect(await deleted.text()).toContain("12 codes of Bulk Product - 7 Days deleted");
    expect(await unsold(variantId)).toEqual([]);

    // A second click on the same confirmation deletes nothing more.
    const again = await post({ intent: "bulk-delete", token: previewed.token }, who.cookie);
    expect(again.status).toBe(409);

    const undone = await post({ intent: "bulk-undo", token: previewed.token }, who.cookie);
    expect(undone.status).toBe(200);
    expect(await undone.text()).toContain("12 codes of Bulk Product - 7 Days back in stock, unsold");
    expect(await unsold(variantId)).toEqual([...codes].sort());

    // Undo twice (a double click, a second admin) is refused and changes nothing.
    const second = await admin();
    const twice = await post({ intent: "bulk-undo", token: previewed.token }, second.cookie);
    expect(twice.status).toBe(409);
    expect(await twice.text()).toContain("already undone");
    expect(await unsold(variantId)).toEqual([...codes].sort());

    const logged = await db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.subject, `bulk:${previewed.token}`), like(auditLog.action, "stock.bulk-delete%")))
      .orderBy(auditLog.id);
    expect(logged.map((row) => row.action)).toEqual(["stock.bulk-delete", "stock.bulk-delete.undo"]);
  });

  it("deletes only the listed codes, and refuses when the stock changed after the preview", async () => {
    const variantId = variantOf();
    const codes = Array.from({ length: 4 }, (_, i) => `LIST-${unique("c")}-${i}`);
    await stock(variantId, codes);
    const who = await admin();
    const previewed = await preview({ variantId, codes: `${codes[1]}\n${codes[2]}\nNOT-IN-STOCK` }, who);
    expect(previewed.text).toContain("2 codes would be deleted");

    // A code the preview named is deleted by hand meanwhile: the set changed, so nothing is deleted.
    const [one] = await db.select({ id: productCodes.id }).from(productCodes).where(eq(productCodes.code, codes[1]!));
    expect((await post({ intent: "delete", id: String(one!.id) }, who.cookie)).status).toBe(200);
    const refused = await post({ intent: "bulk-delete", token: previewed.token }, who.cookie);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("The stock changed since the preview");
    expect(await unsold(variantId)).toEqual([codes[0], codes[2], codes[3]].sort());

    const fresh = await preview({ variantId, codes: `${codes[1]}\n${codes[2]}` }, who);
    expect(fresh.text).toContain("1 code would be deleted");
    expect((await post({ intent: "bulk-delete", token: fresh.token }, who.cookie)).status).toBe(200);
    expect(await unsold(variantId)).toEqual([codes[0], codes[3]].sort());
  });

  it("refuses to undo after the hour", async () => {
    const variantId = variantOf();
    const codes = [`LATE-${unique("c")}-1`, `LATE-${unique("c")}-2`];
    await stock(variantId, codes);
    const who = await admin();
    const previewed = await preview({ variantId, codes: "" }, who);
    expect((await post({ intent: "bulk-delete", token: previewed.token }, who.cookie)).status).toBe(200);
    // The hour passes.
    const applied = await db.select().from(bulkChanges).where(eq(bulkChanges.id, previewed.token)).get();
    await db
      .update(bulkChanges)
      .set({ appliedAt: applied!.appliedAt! - UNDO_WINDOW_MS, undoUntil: Date.now() - 1 })
      .where(eq(bulkChanges.id, previewed.token));
    const late = await post({ intent: "bulk-undo", token: previewed.token }, who.cookie);
    expect(late.status).toBe(409);
    expect(await late.text()).toContain("can no longer be undone");
    expect(await unsold(variantId)).toEqual([]);
  });

  it("refuses every step to staff who may not manage stock, and to another admin's preview", async () => {
    const variantId = variantOf();
    const codes = [`GUARD-${unique("c")}-1`, `GUARD-${unique("c")}-2`];
    await stock(variantId, codes);
    const who = await admin();
    const previewed = await preview({ variantId, codes: "" }, who);
    const support = await createAccount({ role: "support" });
    const supportCookie = await signIn(support, unique("ip"));
    for (const form of <Record<string, string>[]>[
      { intent: "bulk-preview", variantId, codes: "" },
      { intent: "bulk-delete", token: previewed.token },
      { intent: "bulk-undo", token: previewed.token },
    ]) {
      expect([form.intent, (await post(form, supportCookie)).status]).toEqual([form.intent, 403]);
    }
    // Another admin cannot confirm a preview that is not theirs.
    const other = await admin();
    expect((await post({ intent: "bulk-delete", token: previewed.token }, other.cookie)).status).toBe(404);
    expect(await unsold(variantId)).toEqual([...codes].sort());

    // Undo needs the capability too, once the change ran.
    expect((await post({ intent: "bulk-delete", token: previewed.token }, who.cookie)).status).toBe(200);
    expect((await post({ intent: "bulk-undo", token: previewed.token }, supportCookie)).status).toBe(403);
    expect(await unsold(variantId)).toEqual([]);
  });
});
