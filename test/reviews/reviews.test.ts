// Reviews from verified buyers through the Worker: only a member whose key for the product was
// activated at least a day before may review it, once; they edit or delete only their own; bad
// input is a field error; staff hide a review (audited) and it leaves the product page and its
// average at once, however the page was cached.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, productReviews, reviewModeration } from "~/server/platform/db/schema.server";
import { isUniqueViolation } from "~/server/platform/db/client.server";
import { boughtKey, call, createAccount, db, deliver, hwid, nextId, signIn, unique, validate } from "../helpers";

const PRODUCT = { id: "gid://shopify/Product/8800000000001", handle: "vertex-rust" };
const PAGE = `/product/${PRODUCT.handle}`;

/** A signed-in member who bought a key for Vertex Rust, activated it, and whose clock is `days` later. */
async function buyer({ activate = true } = {}) {
  const account = await createAccount();
  const { key, order } = await boughtKey("30 Days", account.email);
  if (activate) expect((await validate({ key, hwid: hwid(), nonce: crypto.randomUUID() })).json.valid).toBe(true);
  const session = await signIn(account, unique("ip"));
  return { account, order, session, later: (days: number) => `${session}; __Host-test-clock=${days}` };
}

const standing = async (cookie?: string) =>
  ((await (await call(`/api/reviews?product=${PRODUCT.handle}`, { cookie })).json()) as { standing: { kind: string } }).standing;
const review = (cookie: string, form: Record<string, string>) =>
  call("/api/reviews", { form: { intent: "save", product: PRODUCT.handle, ...form }, cookie });
const remove = (cookie: string) => call("/api/reviews", { form: { intent: "delete", product: PRODUCT.handle }, cookie });
const reviewsOf = (userId: string) =>
  db
    .select()
    .from(productReviews)
    .where(and(eq(productReviews.productId, PRODUCT.id), eq(productReviews.userId, userId)))
    .all();
const page = async () => (await call(PAGE)).text();
const moderationOf = (userId: string) =>
  db
    .select()
    .from(reviewModeration)
    .where(and(eq(reviewModeration.productId, PRODUCT.id), eq(reviewModeration.userId, userId)))
    .get();
const moderate = (cookie: string, form: Record<string, string>) => call("/dashboard/reviews", { form, cookie });
/** Every review the public surfaces show: the product page and the next pages of "show more". */
async function publicText() {
  const more = (await (await call(`/api/reviews?product=${PRODUCT.handle}&offset=0`)).json()) as { more: { body: string }[] };
  return (await page()) + JSON.stringify(more.more);
}

/** The product page's stated average and count, and its JSON-LD rating. */
async function rating() {
  const html = await page();
  const stated = /data-average="([\d.]+)" data-count="(\d+)"/.exec(html);
  const jsonLd = /"aggregateRating":\{"@type":"AggregateRating","ratingValue":([\d.]+),"reviewCount":(\d+)/.exec(html);
  return {
    html,
    average: stated?.[1] && Number(stated[1]).toFixed(1),
    count: Number(stated?.[2] ?? 0),
    ldAverage: jsonLd?.[1] && Number(jsonLd[1]).toFixed(1),
    ldCount: Number(jsonLd?.[2] ?? 0),
  };
}

describe("reviews from verified buyers", () => {
  it("refuse members without a key, with a key not activated, or activated under a day ago; allow them a day after activation", async () => {
    const text = { rating: "5", body: "Works well and support was quick to answer." };
    const stranger = await signIn(await createAccount(), unique("ip"));
    expect(await standing(stranger)).toEqual({ kind: "no-licence" });
    const refusedStranger = await review(stranger, text);
    expect(refusedStranger.status).toBe(403);
    expect(await refusedStranger.text()).toContain("you need a key for this product");

    const unused = await buyer({ activate: false });
    expect(await standing(unused.later(5))).toEqual({ kind: "not-activated" });
    expect((await review(unused.later(5), text)).status).toBe(403);

    const fresh = await buyer();
    expect(await standing(fresh.session)).toMatchObject({ kind: "too-soon" });
    const tooSoon = await review(fresh.session, text);
    expect(tooSoon.status).toBe(403);
    expect(await tooSoon.text()).toContain("used their key for a day");
    for (const who of [stranger, unused.later(5), fresh.session]) expect(await standing(who)).not.toMatchObject({ kind: "may-review" });
    expect(await reviewsOf(fresh.account.id)).toHaveLength(0);

    expect(await standing(fresh.later(1))).toEqual({ kind: "may-review", own: null, hidden: null });
    expect((await review(fresh.later(1), text)).status).toBe(200);
    expect(await reviewsOf(fresh.account.id)).toMatchObject([{ rating: 5, body: text.body }]);
    expect(await moderationOf(fresh.account.id)).toBeUndefined();
    expect(await standing()).toEqual({ kind: "signed-out" });
    expect((await call("/api/reviews", { form: { intent: "save", product: PRODUCT.handle, ...text } })).status).toBe(401);
  });

  it("keep one review per member: a second post edits it, the database refuses a second row, and a refunded key no longer counts", async () => {
    const member = await buyer();
    const cookie = member.later(2);
    expect((await review(cookie, { rating: "3", body: "Decent, the menu took a while to learn." })).status).toBe(200);
    expect((await review(cookie, { rating: "4", body: "Better after the update, the menu is clearer now." })).status).toBe(200);
    const rows = await reviewsOf(member.account.id);
    expect(rows).toMatchObject([{ rating: 4, body: "Better after the update, the menu is clearer now." }]);
    expect(await standing(cookie)).toEqual({
      kind: "may-review",
      own: { rating: 4, body: "Better after the update, the menu is clearer now." },
      hidden: null,
    });
    const now = Date.now();
    await expect(
      db.insert(productReviews).values({
        productId: PRODUCT.id,
        productHandle: PRODUCT.handle,
        productTitle: "Vertex Rust",
        userId: member.account.id,
        rating: 1,
        body: "A second review",
        createdAt: now,
        updatedAt: now,
      }),
    ).rejects.toSatisfy(isUniqueViolation);

    // Refunded: the key is revoked, so the member may no longer write (their review stays theirs to delete).
    const refund = {
      id: nextId(),
      order_id: member.order.id,
      refund_line_items: [{ line_item_id: member.order.line_items[0]!.id, quantity: 1 }],
    };
    await deliver("refunds/create", refund);
    expect(await standing(cookie)).toEqual({ kind: "no-licence" });
    expect((await review(cookie, { rating: "5", body: "Trying to change it after the refund." })).status).toBe(403);
    expect((await remove(cookie)).status).toBe(200);
  });

  it("let a member edit and delete only their own review", async () => {
    const author = await buyer();
    const other = await buyer();
    const body = "My own words about the product, unchanged.";
    expect((await review(author.later(1), { rating: "5", body })).status).toBe(200);
    // The other member has no review to delete, and their save writes their own, never the author's.
    expect((await remove(other.later(1))).status).toBe(404);
    expect((await review(other.later(1), { rating: "1", body: "Someone else's opinion entirely." })).status).toBe(200);
    expect(await reviewsOf(author.account.id)).toMatchObject([{ rating: 5, body }]);
    expect(await reviewsOf(other.account.id)).toMatchObject([{ rating: 1 }]);
    expect((await remove(author.later(1))).status).toBe(200);
    expect(await reviewsOf(author.account.id)).toHaveLength(0);
    expect(await reviewsOf(other.account.id)).toHaveLength(1);
    expect((await remove(author.later(1))).status).toBe(404);
  });

  it("answer bad stars, text or products with field errors (400), never a 500, storing nothing", async () => {
    const member = await buyer();
    const cookie = member.later(1);
    for (const [form, message] of [
      [{ rating: "6", body: "Nice tool overall, would buy again." }, "Choose a rating from 1 to 5 stars"],
      [{ rating: "0", body: "Nice tool overall, would buy again." }, "Choose a rating from 1 to 5 stars"],
      [{ rating: "4.5", body: "Nice tool overall, would buy again." }, "Choose a rating from 1 to 5 stars"],
      [{ rating: "5", body: "short" }, "at least 10 characters"],
      [{ rating: "5", body: "x".repeat(2001) }, "under 2000 characters"],
      [{ rating: "5", body: "Nice tool overall, would buy again.", product: "../etc" }, "Unknown product"],
    ] as const) {
      const response = await review(cookie, form);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain(message);
    }
    expect((await review(cookie, { rating: "5", body: "Nice tool overall, would buy again.", product: "no-such-product" })).status).toBe(
      404,
    );
    expect((await call("/api/reviews", { form: { intent: "publish", product: PRODUCT.handle }, cookie })).status).toBe(400);
    expect(await reviewsOf(member.account.id)).toHaveLength(0);
  });

  it("show real reviews with their average on the product page at once (the cached copy is dropped), and hidden ones leave it and its average", async () => {
    const first = await buyer();
    const second = await buyer();
    const before = await rating();
    const praise = unique("Praise ");
    const complaint = unique("Complaint ");
    expect((await review(first.later(1), { rating: "5", body: `${praise} works perfectly.` })).status).toBe(200);
    // Cached after the first review: the second must drop the copy.
    expect((await call(PAGE)).status).toBe(200);
    expect((await review(second.later(1), { rating: "1", body: `${complaint} crashed on start.` })).status).toBe(200);
    const both = await rating();
    expect(both.html).toContain(praise);
    expect(both.html).toContain(complaint);
    expect(both.html).toContain("Verified purchase");
    expect(both.count).toBe(before.count + 2);
    expect(both.ldCount).toBe(both.count);
    expect(both.ldAverage).toBe(both.average);

    const support = await signIn(await createAccount({ role: "support" }), unique("ip"));
    const [row] = await reviewsOf(second.account.id);
    // A member may not hide a review; a reason is required.
    expect(
      (await call("/dashboard/reviews", { form: { intent: "hide", review: String(row!.id), reason: "Off topic" }, cookie: second.session }))
        .status,
    ).toBe(403);
    const noReason = await call("/dashboard/reviews", { form: { intent: "hide", review: String(row!.id), reason: "" }, cookie: support });
    expect(noReason.status).toBe(400);
    expect(
      (
        await call("/dashboard/reviews", {
          form: { intent: "hide", review: String(row!.id), reason: "Not about the product" },
          cookie: support,
        })
      ).status,
    ).toBe(200);
    const hidden = await rating();
    expect(hidden.html).not.toContain(complaint);
    expect(hidden.count).toBe(before.count + 1);
    expect(hidden.ldCount).toBe(hidden.count);
    expect(Number(hidden.average)).toBeGreaterThan(Number(both.average));
    expect(
      await db
        .select()
        .from(auditLog)
        .where(eq(auditLog.subject, `review:${row!.id}`))
        .all(),
    ).toMatchObject([{ action: "review.hide" }]);
    // Its author still sees it, marked hidden; staff see it in the list.
    expect(await standing(second.later(1))).toMatchObject({
      kind: "may-review",
      own: { rating: 1 },
      hidden: { reason: "Not about the product" },
    });
    expect(await (await call("/dashboard/reviews?show=hidden", { cookie: support })).text()).toContain(complaint);
    expect(
      (await call("/dashboard/reviews", { form: { intent: "hide", review: String(row!.id), reason: "Twice" }, cookie: support })).status,
    ).toBe(409);

    expect((await call("/dashboard/reviews", { form: { intent: "unhide", review: String(row!.id) }, cookie: support })).status).toBe(200);
    const shown = await rating();
    expect(shown.html).toContain(complaint);
    expect(shown.count).toBe(both.count);
  });

  it("keep a hidden review hidden when its author edits it, or deletes it and posts it again, until staff show it; the author sees why", async () => {
    const author = await buyer();
    const cookie = author.later(1);
    const supportAccount = await createAccount({ role: "support" });
    const support = await signIn(supportAccount, unique("ip"));
    const before = await rating();
    const abuse = unique("Abuse ");
    expect((await review(cookie, { rating: "1", body: `${abuse} insults the staff.` })).status).toBe(200);
    const [first] = await reviewsOf(author.account.id);
    expect((await moderate(support, { intent: "hide", review: String(first!.id), reason: "Insults other members" })).status).toBe(200);
    expect(await publicText()).not.toContain(abuse);

    // Edited: still hidden, and its author is told so and why.
    const edited = unique("Edited ");
    expect((await review(cookie, { rating: "2", body: `${edited} still insults the staff.` })).status).toBe(200);
    expect(await publicText()).not.toContain(edited);
    expect(await standing(cookie)).toMatchObject({ kind: "may-review", own: { rating: 2 }, hidden: { reason: "Insults other members" } });

    // Deleted and posted again: the new review is hidden as the old one was.
    expect((await remove(cookie)).status).toBe(200);
    expect(await standing(cookie)).toMatchObject({ kind: "may-review", own: null, hidden: { reason: "Insults other members" } });
    const again = unique("Again ");
    expect((await review(cookie, { rating: "1", body: `${again} posted once more.` })).status).toBe(200);
    const reposted = await rating();
    expect(reposted.html).not.toContain(again);
    expect(await publicText()).not.toContain(again);
    expect(reposted.count).toBe(before.count);
    expect(reposted.average).toBe(before.average);
    expect(await standing(cookie)).toMatchObject({ own: { rating: 1 }, hidden: { reason: "Insults other members" } });
    const staffPage = await (await call("/dashboard/reviews?show=hidden", { cookie: support })).text();
    expect(staffPage).toContain(again);
    expect(staffPage).toContain("Insults other members");
    expect(staffPage).toContain(` by ${supportAccount.email}`);
    expect(await (await call("/dashboard/reviews?show=shown", { cookie: support })).text()).not.toContain(again);

    // Staff show it again: it returns to the page and its average.
    const [second] = await reviewsOf(author.account.id);
    expect((await moderate(support, { intent: "unhide", review: String(second!.id) })).status).toBe(200);
    const shown = await rating();
    expect(shown.html).toContain(again);
    expect(shown.count).toBe(before.count + 1);
    expect(await standing(cookie)).toMatchObject({ own: { rating: 1 }, hidden: null });
  });

  it("take one hide when two staff hide a review at once: one answer 409, one audit entry, the winner's reason", async () => {
    const author = await buyer();
    expect((await review(author.later(1), { rating: "2", body: "Two moderators will look at this one." })).status).toBe(200);
    const [row] = await reviewsOf(author.account.id);
    const [one, two] = [await createAccount({ role: "support" }), await createAccount({ admin: true })];
    const answers = await Promise.all([
      moderate(await signIn(one, unique("ip")), { intent: "hide", review: String(row!.id), reason: "First reason" }),
      moderate(await signIn(two, unique("ip")), { intent: "hide", review: String(row!.id), reason: "Second reason" }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const [winner, reason] = answers[0]!.status === 200 ? [one, "First reason"] : [two, "Second reason"];
    expect(await answers.find((a) => a.status === 409)!.text()).toContain(`This review was already hidden by ${winner.email}`);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(eq(auditLog.subject, `review:${row!.id}`))
        .all(),
    ).toMatchObject([{ action: "review.hide", actorUserId: winner.id }]);
    expect(await moderationOf(author.account.id)).toMatchObject({ reason, hiddenBy: winner.id });
  });

  it("say honestly that a product has no reviews yet, with no rating in its JSON-LD", async () => {
    const html = await (await call("/product/vertex-hwid-spoofer")).text();
    expect(html).toContain("No reviews yet");
    expect(html).not.toContain("aggregateRating");
    expect(html).not.toContain("Verified purchase");
  });
});
