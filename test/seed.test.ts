import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { expect, it } from "vitest";
import { downloadableFiles, productCodes, profiles, statusUpdates, userRoles, users } from "~/server/platform/db/schema.server";
import { verifyPassword } from "~/server/accounts/password.server";
import { DEMO_ACCOUNTS, seedDemoData } from "~/server/jobs/seed.server";
import { db } from "./helpers";

async function counts() {
  const count = async (table: SQLiteTable) => (await db.select({ n: sql<number>`count(*)` }).from(table).get())!.n;
  return {
    users: await count(users),
    profiles: await count(profiles),
    roles: await count(userRoles),
    codes: await count(productCodes),
    updates: await count(statusUpdates),
    files: await count(downloadableFiles),
  };
}

it("seeds the demo data once, however often it runs", async () => {
  await seedDemoData(db, env.DOWNLOADS);
  const first = await counts();
  await seedDemoData(db, env.DOWNLOADS);
  expect(await counts()).toEqual(first);

  for (const account of DEMO_ACCOUNTS) {
    const user = await db.select().from(users).where(sql`${users.email} = ${account.email}`).get();
    expect(user?.emailVerifiedAt).toBeTypeOf("number");
    expect(await verifyPassword(account.password, user!.passwordHash!)).toBe(true);
  }
  expect(first.codes).toBeGreaterThanOrEqual(25);
  // Stocked as staff stock a variant: by the name buyers read, never Shopify's "Default Title".
  const labels = (await db.selectDistinct({ title: productCodes.variantTitle }).from(productCodes)).map((c) => c.title);
  expect(labels).toContain("Vertex Rust - Lifetime");
  expect(labels.filter((title) => title.includes("Default Title"))).toEqual([]);
  expect(first.updates).toBeGreaterThanOrEqual(3);
  const file = await db.select().from(downloadableFiles).get();
  const object = await env.DOWNLOADS.get(file!.filePath);
  expect(object?.size).toBe(file!.fileSize);
});
