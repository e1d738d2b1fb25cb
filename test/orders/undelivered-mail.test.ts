// A card order whose key e-mail cannot be delivered: the keys are handed out all the same, the
// order is flagged in the back office, and staff send the keys to the buyer's corrected address.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, licences, mailOutbox, productCodes, userSubscriptions } from "~/server/platform/db/schema.server";
import { addCodes } from "~/server/keys/stock.server";
import { boughtKey, call, createAccount, db, deliver, signIn, unique } from "../helpers";

const staff = async (role: "admin" | "support") => signIn(await createAccount({ role }), unique("ip"));
const text = async (response: Response) => (await response.text()).replace(/<!-- -->/g, "");
const correct = (orderId: number, email: string, cookie: string) =>
  call(`/dashboard/orders/shopify/${orderId}`, { form: { intent: "correct-email", email }, cookie });

/** A key bought with an address whose mail cannot be delivered. */
const undeliverableOrder = () => boughtKey("30 Days", `${unique("typo")}@gmial.invalid`);

describe("an order whose key e-mail could not be delivered", () => {
  it("is flagged on the orders list and its page, for support as for admins", async () => {
    const order = await undeliverableOrder();
    const cookie = await staff("support");
    const list = await text(await call(`/dashboard/orders?q=${encodeURIComponent(order.email)}`, { cookie }));
    expect(list).toContain("E-mail failed");
    // Found by its number (one order read through its own table's index), it carries the flag too.
    expect(await text(await call(`/dashboard/orders?q=${encodeURIComponent(order.order.name)}`, { cookie }))).toContain("E-mail failed");
    const page = await text(await call(`/dashboard/orders/shopify/${order.orderId}`, { cookie }));
    expect(page).toContain("The buyer&#x27;s e-mail could not be delivered");
    expect(page).toContain("The domain does not exist (.invalid)");
    expect(page).toContain("Send the keys to this address");
    // An order whose mail went out is not flagged.
    const fine = await boughtKey("30 Days");
    expect(await text(await call(`/dashboard/orders?q=${encodeURIComponent(fine.email)}`, { cookie }))).not.toContain("E-mail failed");
  });

  it("moves the keys to the corrected address and sends them there, audited; the flag clears", async () => {
    const order = await undeliverableOrder();
    const buyer = await createAccount();
    const admin = await createAccount({ role: "support" });
    const cookie = await signIn(admin, unique("ip"));
    const response = await correct(order.orderId, buyer.email.toUpperCase(), cookie);
    expect(response.status).toBe(200);
    const sent = await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, buyer.email));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.textBody).toContain(order.key);
    expect(
      (await db.select({ customerEmail: productCodes.customerEmail }).from(productCodes).where(eq(productCodes.code, order.key)).get())
        ?.customerEmail,
    ).toBe(buyer.email);
    expect((await db.select({ ownerEmail: licences.ownerEmail }).from(licences).where(eq(licences.key, order.key)).get())?.ownerEmail).toBe(
      buyer.email,
    );
    // The buyer's verified account holds the key now.
    expect(await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, buyer.id))).toHaveLength(1);
    const audits = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subject, `shopify:${order.orderId}`), eq(auditLog.action, "order.correct-email")));
    expect(audits).toHaveLength(1);
    expect(audits[0]!.detail).toContain(order.email);
    expect(await text(await call(`/dashboard/orders/shopify/${order.orderId}`, { cookie }))).not.toContain("could not be delivered");
    expect(await text(await call(`/dashboard/orders?q=${encodeURIComponent(order.order.name)}`, { cookie }))).not.toContain(
      "E-mail failed",
    );

    // A later order body from Shopify still carries the old address: the keys keep going to the corrected one.
    const line = order.order.line_items[0]!;
    await addCodes(db, { id: `gid://shopify/ProductVariant/${line.variant_id}`, title: "Vertex Rust - 30 Days" }, `${order.key}-2`);
    await deliver("orders/updated", {
      ...order.order,
      updated_at: new Date(Date.now() + 60_000).toISOString(),
      line_items: [line, { ...line, id: line.id + 1 }],
    });
    const added = await db
      .select()
      .from(productCodes)
      .where(eq(productCodes.code, `${order.key}-2`))
      .get();
    expect(added).toMatchObject({ customerEmail: buyer.email, orderId: String(order.orderId) });
    expect(
      (await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, buyer.email))).some((m) => m.textBody.includes(`${order.key}-2`)),
    ).toBe(true);
  });

  it("refuses to move keys away from an address a member's account has proven", async () => {
    const member = await createAccount();
    const order = await boughtKey("30 Days", member.email);
    await db
      .update(mailOutbox)
      .set({ status: "failed", lastError: "Mail API answered 422: recipient suppressed" })
      .where(eq(mailOutbox.toAddress, member.email));
    const response = await correct(order.orderId, `${unique("other")}@example.test`, await staff("admin"));
    expect(response.status).toBe(409);
    expect(await response.text()).toContain("belongs to a verified member's account");
    expect((await db.select({ ownerEmail: licences.ownerEmail }).from(licences).where(eq(licences.key, order.key)).get())?.ownerEmail).toBe(
      member.email,
    );
  });

  it("refuses to redirect an order whose mail was delivered, a bad address, and members", async () => {
    const fine = await boughtKey("30 Days");
    const cookie = await staff("admin");
    const refused = await correct(fine.orderId, `${unique("thief")}@example.test`, cookie);
    expect(refused.status).toBe(409);
    expect((await db.select({ ownerEmail: licences.ownerEmail }).from(licences).where(eq(licences.key, fine.key)).get())?.ownerEmail).toBe(
      fine.email,
    );

    const order = await undeliverableOrder();
    expect((await correct(order.orderId, "not an address", cookie)).status).toBe(400);
    expect((await correct(order.orderId, order.email, cookie)).status).toBe(400);
    const member = await signIn(await createAccount(), unique("ip"));
    expect((await correct(order.orderId, `${unique("m")}@example.test`, member)).status).toBe(403);
    expect(
      (await db.select({ customerEmail: productCodes.customerEmail }).from(productCodes).where(eq(productCodes.code, order.key)).get())
        ?.customerEmail,
    ).toBe(order.email);
  });
});
