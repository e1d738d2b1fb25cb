// Shopify signs a webhook's body, not its headers: the topic and the delivery id are anyone's to
// change. These tests replay genuine signed bodies under other topics, and in every order Shopify
// can deliver them, and check that only the body's own state decides what happens.
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { addCodes } from "~/server/keys/stock.server";
import { licences, mailOutbox, productCodes, shopifyOrders, webhookDeliveries } from "~/server/platform/db/schema.server";
import { db, deliver, nextId, runQueue, unique } from "../helpers";

/** A fresh variant with `n` codes in stock. */
async function stockedVariant(n: number) {
  const numeric = nextId() + 8_000_000_000;
  await addCodes(
    db,
    { id: `gid://shopify/ProductVariant/${numeric}`, title: "Vertex Rust - 30 Days" },
    Array.from({ length: n }, (_, i) => `SIG-${numeric}-${i}`).join("\n"),
  );
  return numeric;
}

const T0 = Date.parse("2026-11-20T10:00:00Z");
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** One order's bodies as Shopify sends them over its life: every body repeats the whole order. */
function orderStory(variant: number, quantity = 2) {
  const id = nextId();
  const line = nextId();
  const refundId = nextId();
  const base = {
    id,
    name: `#S${id % 100000}`,
    email: `${unique("buyer")}@example.test`,
    currency: "USD",
    total_price: "179.98",
    line_items: [{ id: line, variant_id: variant, quantity, title: "Vertex Rust", variant_title: "30 Days", price: "89.99" }],
  };
  const refundLines = [{ line_item_id: line, quantity: 1 }];
  return {
    base,
    created: { ...base, financial_status: "pending", updated_at: at(1), refunds: [] },
    paid: { ...base, financial_status: "paid", updated_at: at(2), refunds: [] },
    refund: { id: refundId, order_id: id, created_at: at(3), refund_line_items: refundLines },
    updated: {
      ...base,
      financial_status: "partially_refunded",
      updated_at: at(3),
      refunds: [{ id: refundId, refund_line_items: refundLines }],
    },
    cancelled: {
      ...base,
      financial_status: "refunded",
      cancelled_at: at(4),
      updated_at: at(4),
      refunds: [{ id: refundId, refund_line_items: refundLines }],
    },
  };
}

const codesOf = (orderId: number) =>
  db
    .select()
    .from(productCodes)
    .where(eq(productCodes.orderId, String(orderId)));
const mailsTo = (email: string) => db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, email));
const outcomeOf = async (orderId: number) =>
  (
    await db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.orderId, String(orderId)))
  ).map((d) => `${d.outcome}: ${d.detail}`);

describe("the topic header grants and revokes nothing", () => {
  it("an unpaid order's signed body sent again as orders/paid hands out no key", async () => {
    const story = orderStory(await stockedVariant(2));
    await deliver("orders/create", story.created);
    await deliver("orders/paid", story.created);
    expect(await codesOf(story.base.id)).toHaveLength(0);
    expect(await mailsTo(story.base.email)).toHaveLength(0);
    expect((await outcomeOf(story.base.id)).every((o) => o.includes("Not paid yet"))).toBe(true);
  });

  it("a paid order's signed body sent again as orders/cancelled or refunds/create revokes nothing and mails nothing", async () => {
    const story = orderStory(await stockedVariant(2));
    await deliver("orders/paid", story.paid);
    const [mail] = await mailsTo(story.base.email);
    expect(mail?.subject).toMatch(/^Your Vertex keys/);
    await deliver("orders/cancelled", story.paid);
    await deliver("refunds/create", story.paid);
    const codes = await codesOf(story.base.id);
    expect(codes.map((c) => c.revokedAt)).toEqual([null, null]);
    expect(
      await db
        .select({ revokedAt: licences.revokedAt })
        .from(licences)
        .where(eq(licences.orderId, String(story.base.id))),
    ).toEqual([{ revokedAt: null }, { revokedAt: null }]);
    expect(
      (
        await db
          .select()
          .from(shopifyOrders)
          .where(eq(shopifyOrders.id, String(story.base.id)))
          .get()
      )?.cancelledAt,
    ).toBeNull();
    expect(await mailsTo(story.base.email)).toHaveLength(1);
  });
});

describe("an older signed body never rolls an order back", () => {
  it("is recorded as ignored when it arrives after a newer one", async () => {
    const story = orderStory(await stockedVariant(2));
    await deliver("orders/paid", story.paid);
    await deliver("orders/create", story.created);
    const order = await db
      .select()
      .from(shopifyOrders)
      .where(eq(shopifyOrders.id, String(story.base.id)))
      .get();
    expect(order).toMatchObject({ financialStatus: "paid", sourceUpdatedAt: Date.parse(story.paid.updated_at) });
    expect((await outcomeOf(story.base.id)).filter((o) => o.startsWith("ignored: Older than"))).toHaveLength(1);
  });

  it("a paid body replayed after the cancellation hands out nothing", async () => {
    const story = orderStory(await stockedVariant(2));
    await deliver("orders/create", story.created);
    await deliver("orders/cancelled", story.cancelled);
    await deliver("orders/paid", story.paid);
    expect(await codesOf(story.base.id)).toHaveLength(0);
    expect(await mailsTo(story.base.email)).toHaveLength(0);
  });
});

/** Every order of `items`, each exactly once. */
function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

type Step = "created" | "paid" | "refund" | "updated" | "cancelled";
const TOPIC: Record<Step, string> = {
  created: "orders/create",
  paid: "orders/paid",
  refund: "refunds/create",
  updated: "orders/updated",
  cancelled: "orders/cancelled",
};

async function play(steps: Step[]) {
  const story = orderStory(await stockedVariant(2));
  for (const step of steps) await deliver(TOPIC[step], story[step]);
  const codes = await codesOf(story.base.id);
  const mails = await mailsTo(story.base.email);
  return { story, codes, mails };
}

/** Every key that stopped working and had been sent to the buyer is named in a "revoked" e-mail. */
function expectTold(
  codes: { code: string; revokedAt: number | null; mailedAt: number | null }[],
  mails: { subject: string; textBody: string }[],
) {
  const revokedMails = mails
    .filter((m) => /revoked/.test(m.subject))
    .map((m) => m.textBody)
    .join("\n");
  for (const code of codes.filter((c) => c.revokedAt !== null && c.mailedAt !== null)) expect(revokedMails).toContain(code.code);
}

describe("a paid, partly refunded order, its bodies delivered in any order", () => {
  it.each(permutations<Step>(["created", "paid", "refund", "updated"]).map((steps) => [steps.join(" → "), steps] as const))(
    "%s",
    async (_, steps) => {
      const { codes, mails } = await play(steps);
      // Two units, one refunded: one key works, one is revoked, whatever the order of arrival.
      expect(codes).toHaveLength(2);
      const working = codes.filter((c) => c.revokedAt === null);
      expect(working).toHaveLength(1);
      // The working key reached the buyer exactly once; a revoked key they had been sent is named.
      expect(mails.filter((m) => m.textBody.includes(working[0]!.code) && !/revoked/.test(m.subject))).toHaveLength(1);
      expectTold(codes, mails);
    },
  );
});

describe("a paid order refunded and cancelled, its bodies delivered in any order", () => {
  const orders: Step[][] = [
    ["created", "paid", "refund", "updated", "cancelled"],
    ["cancelled", "updated", "refund", "paid", "created"],
    ["paid", "cancelled", "created", "refund", "updated"],
    ["refund", "cancelled", "paid", "updated", "created"],
    ["updated", "paid", "cancelled", "created", "refund"],
    ["created", "cancelled", "paid", "updated", "refund"],
  ];
  it.each(orders.map((steps) => [steps.join(" → "), steps] as const))("%s", async (_, steps) => {
    const { codes, mails } = await play(steps);
    expect(codes.filter((c) => c.revokedAt === null)).toEqual([]);
    expectTold(codes, mails);
  });
});

describe("every key handed out is mailed", () => {
  it("a later signed body that adds units hands out and mails only the new keys, once", async () => {
    const variant = await stockedVariant(3);
    const story = orderStory(variant, 1);
    await deliver("orders/paid", story.paid);
    const [first] = await codesOf(story.base.id);
    const added = {
      ...story.paid,
      updated_at: at(10),
      line_items: [...story.paid.line_items, { ...story.paid.line_items[0]!, id: nextId() }],
    };
    await deliver("orders/updated", added);
    await deliver("orders/updated", added);
    const codes = await codesOf(story.base.id);
    expect(codes).toHaveLength(2);
    const fresh = codes.find((c) => c.id !== first!.id)!;
    const mails = await mailsTo(story.base.email);
    expect(mails.map((m) => m.subject)).toEqual([
      expect.stringMatching(/^Your Vertex key — order/),
      expect.stringMatching(/^Your new Vertex key — order/),
    ]);
    expect(mails[1]!.textBody).toContain(fresh.code);
    expect(mails[1]!.textBody).not.toContain(first!.code);
    expect(codes.every((c) => c.mailedAt !== null)).toBe(true);
  });
});

describe("units and refunds that cross", () => {
  it("hands out units an edit added only once the order is paid again", async () => {
    const story = orderStory(await stockedVariant(3), 1);
    await deliver("orders/paid", story.paid);
    const added = [...story.paid.line_items, { ...story.paid.line_items[0]!, id: nextId() }];
    // The edit leaves a balance due: the new unit waits.
    await deliver("orders/updated", { ...story.paid, financial_status: "partially_paid", updated_at: at(10), line_items: added });
    expect(await codesOf(story.base.id)).toHaveLength(1);
    await deliver("orders/updated", { ...story.paid, financial_status: "paid", updated_at: at(11), line_items: added });
    expect(await codesOf(story.base.id)).toHaveLength(2);
    expect(await mailsTo(story.base.email)).toHaveLength(2);
  });

  it("keeps a refund that arrives while the paid order's units are being handed out, and applies it after", async () => {
    const story = orderStory(await stockedVariant(2));
    // The paid delivery breaks before any unit gets its key (a database error), after the order was recorded as paid.
    const trigger = `fail_assign_${story.base.id}`;
    await env.DB.exec(
      `CREATE TRIGGER ${trigger} BEFORE UPDATE ON product_codes WHEN NEW.order_id = '${story.base.id}' BEGIN SELECT RAISE(ABORT, 'stock unavailable'); END;`,
    );
    const id = crypto.randomUUID();
    await db
      .insert(webhookDeliveries)
      .values({ id, topic: "orders/paid", outcome: "queued", payload: JSON.stringify(story.paid), receivedAt: Date.now() });
    const job = { kind: "shopify-delivery", deliveryId: id };
    expect((await runQueue("keyshop-jobs", [job])).retryMessages).toHaveLength(1);
    expect(await codesOf(story.base.id)).toHaveLength(0);
    // The refund of one unit arrives meanwhile: nothing to revoke yet, so it waits.
    await deliver("refunds/create", story.refund);
    await env.DB.exec(`DROP TRIGGER ${trigger};`);
    // The queue delivers the paid order again: both units get keys, and the refund takes one back before the mail.
    await runQueue("keyshop-jobs", [job], 2);
    const codes = await codesOf(story.base.id);
    expect(codes).toHaveLength(2);
    expect(codes.filter((c) => c.revokedAt === null)).toHaveLength(1);
    const [mail] = await mailsTo(story.base.email);
    expect(mail!.textBody).toContain(codes.find((c) => c.revokedAt === null)!.code);
    expect(mail!.textBody).not.toContain(codes.find((c) => c.revokedAt !== null)!.code);
  });
});

describe("a paid order never fails on its e-mail address", () => {
  it.each([
    ["an apostrophe", "o'brien@example.test"],
    ["an internationalised domain", "käufer@bücher.example"],
    ["upper case", "Buyer.Name@Example.TEST"],
  ])("hands out and mails the key to an address with %s", async (_, email) => {
    const story = orderStory(await stockedVariant(1), 1);
    await deliver("orders/paid", { ...story.paid, email });
    const [code] = await codesOf(story.base.id);
    expect(code?.customerEmail).toBe(email.toLowerCase());
    const [mail] = await mailsTo(email.toLowerCase());
    expect(mail).toMatchObject({ status: "sent" });
    expect(mail!.textBody).toContain(code!.code);
  });

  it("hands out the key of an order without any address", async () => {
    const story = orderStory(await stockedVariant(1), 1);
    await deliver("orders/paid", { ...story.paid, email: null, contact_email: null, customer: null });
    const codes = await codesOf(story.base.id);
    expect(codes).toHaveLength(1);
    expect(await db.select().from(licences).where(eq(licences.key, codes[0]!.code)).get()).toBeDefined();
  });
});

describe("mail that cannot be delivered", () => {
  it("leaves the keys handed out and marks the message failed at once", async () => {
    const story = orderStory(await stockedVariant(1), 1);
    const email = `${unique("typo")}@example.invalid`;
    await deliver("orders/paid", { ...story.paid, email });
    const [code] = await codesOf(story.base.id);
    expect(code).toMatchObject({ customerEmail: email, isUsed: true });
    const failed = await db
      .select()
      .from(mailOutbox)
      .where(and(eq(mailOutbox.toAddress, email), eq(mailOutbox.status, "failed")));
    expect(failed).toHaveLength(1);
    // Failed for good after one attempt: the cron retries pending mail only.
    expect(failed[0]).toMatchObject({ attempts: 1, sentAt: null, lastError: expect.stringMatching(/does not exist/) });
  });
});
