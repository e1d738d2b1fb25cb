import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { decodedRows } from "~/server/platform/db/reads.server";
import { manualOrders, orderIndex, productCodes } from "~/server/platform/db/schema.server";
import { createAccount, db, quietDay, unique } from "../helpers";

describe("rows decoded once per statement", () => {
  it("gives what the builder's own mapping gives: a view's columns, nulls, and SQL with its own decoder", async () => {
    const { start } = quietDay(1970);
    const account = await createAccount();
    const email = `${unique("decoded")}@example.test`;
    for (const [i, userId] of [account.id, null].entries())
      await db.insert(manualOrders).values({ userId, email, variantId: "v", variantTitle: "Plan", reason: "test", createdAt: start + i });
    const fields = {
      key: orderIndex.key,
      userId: orderIndex.userId,
      totalCents: orderIndex.totalCents,
      createdAt: orderIndex.createdAt,
      later: sql<boolean>`${orderIndex.createdAt} > ${start}`.mapWith(Boolean),
      day: sql<string>`'day ' || ${orderIndex.createdAt}`.as("day"),
    };
    const query = () => db.select(fields).from(orderIndex).where(eq(orderIndex.emailKey, email)).orderBy(orderIndex.createdAt);
    const rows = decodedRows(fields, await query().values());
    expect(rows).toEqual(await query().all());
    expect(rows.map((row) => [row.userId, row.later, row.totalCents])).toEqual([
      [account.id, false, 0],
      [null, true, 0],
    ]);
  });

  it("decodes a table's column by its own decoder, and hands the others over as they are", async () => {
    const variantId = unique("gid://shopify/ProductVariant/decoded");
    await db.insert(productCodes).values([
      { variantId, variantTitle: "Plan", code: unique("USED"), isUsed: true, usedAt: 5, createdAt: 1 },
      { variantId, variantTitle: "Plan", code: unique("FREE"), createdAt: 2 },
    ]);
    const fields = { code: productCodes.code, isUsed: productCodes.isUsed, usedAt: productCodes.usedAt };
    const query = () => db.select(fields).from(productCodes).where(eq(productCodes.variantId, variantId)).orderBy(productCodes.id);
    const rows = decodedRows(fields, await query().values());
    expect(rows).toEqual(await query().all());
    expect(rows.map((row) => [row.isUsed, row.usedAt])).toEqual([
      [true, 5],
      [false, null],
    ]);
  });
});
