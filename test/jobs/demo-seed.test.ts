import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { expect, it } from "vitest";
import { productCodes, profiles, releases, statusUpdates, userRoles, users } from "~/server/platform/db/schema.server";
import { verifyPassword } from "~/server/accounts/password.server";
import { DEMO_ACCOUNTS, seedDemoData } from "~/server/jobs/demo-seed.server";
import { boughtKey, db, hwid } from "../helpers";
import { hex, offerFor } from "../releases/release-helpers";

async function counts() {
  const count = async (table: SQLiteTable) =>
    (await db
      .select({ n: sql<number>`count(*)` })
      .from(table)
      .get())!.n;
  return {
    users: await count(users),
    profiles: await count(profiles),
    roles: await count(userRoles),
    codes: await count(productCodes),
    updates: await count(statusUpdates),
    releases: await count(releases),
  };
}

it("seeds the demo data once, however often it runs", async () => {
  await seedDemoData(db, env.DOWNLOADS);
  const first = await counts();
  await seedDemoData(db, env.DOWNLOADS);
  expect(await counts()).toEqual(first);

  for (const account of DEMO_ACCOUNTS) {
    const user = await db
      .select()
      .from(users)
      .where(sql`${users.email} = ${account.email}`)
      .get();
    expect(user?.emailVerifiedAt).toBeTypeOf("number");
    expect(await verifyPassword(account.password, user!.passwordHash!)).toBe(true);
  }
  expect(first.codes).toBeGreaterThanOrEqual(25);
  // Stocked as staff stock a variant: by the name buyers read, never Shopify's "Default Title".
  const labels = (await db.selectDistinct({ title: productCodes.variantTitle }).from(productCodes)).map((c) => c.title);
  expect(labels).toContain("Vertex Rust - Lifetime");
  expect(labels.filter((title) => title.includes("Default Title"))).toEqual([]);
  expect(first.updates).toBeGreaterThanOrEqual(3);
});

it("seeds a stable and a beta release of the demo product, published with their checksums, that its plans get", async () => {
  await seedDemoData(db, env.DOWNLOADS);
  const seeded = await db.select().from(releases);
  expect(seeded.map((release) => [release.product, release.channel, release.state]).sort()).toEqual([
    ["Vertex Rust", "beta", "published"],
    ["Vertex Rust", "stable", "published"],
  ]);
  for (const release of seeded) {
    const object = await env.DOWNLOADS.get(release.objectKey);
    const bytes = new Uint8Array(await object!.arrayBuffer());
    expect([release.size, release.sha256]).toEqual([bytes.byteLength, await hex(bytes)]);
  }
  // The SDK's `update` works out of the box: a weekly key gets the stable build, a monthly one the beta too.
  const [stable, beta] = ["stable", "beta"].map((channel) => seeded.find((release) => release.channel === channel)!);
  const weekly = await boughtKey("1 Week");
  const pc = hwid();
  expect(await offerFor(weekly.key, pc)).toMatchObject({ version: stable!.version, sha256: stable!.sha256 });
  expect(await offerFor(weekly.key, pc, "beta")).toBeNull();
  const monthly = await boughtKey("30 Days");
  expect(await offerFor(monthly.key, hwid(), "beta")).toMatchObject({ version: beta!.version, sha256: beta!.sha256 });
});
