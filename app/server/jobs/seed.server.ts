// Demo data for local development: two accounts, stock for every demo variant, a few status
// updates, one downloadable file, the simulated Discord server with its role rules, and the demo
// reviews and sale. Every insert is keyed, so running it again changes nothing.
// Only the development build calls this; production never contains demo accounts.
import { sql } from "drizzle-orm";
import { allVariants, demoCatalogueAdapter } from "../catalogue/catalogue.server";
import { chunksOf, type Db } from "../platform/db/client.server";
import { downloadableFiles, profiles, statusUpdates, userRoles, users } from "../platform/db/schema.server";
import { hashPassword } from "../accounts/password.server";
import { storeCodes } from "../fulfilment/keys/stock.server";
import { seedSimulatedDiscord } from "../hub/discord/dev-discord.server";
import { seedDemoReviews } from "./demo-reviews.server";

export const DEMO_ACCOUNTS = [
  { id: "00000000-0000-4000-8000-000000000001", email: "admin@example.com", username: "admin", password: "admin-demo-1", admin: true },
  { id: "00000000-0000-4000-8000-000000000002", email: "member@example.com", username: "member", password: "member-demo-1", admin: false },
] as const;

const DEMO_FILE = {
  id: "00000000-0000-4000-8000-0000000000f1",
  key: "vertex-loader/1.0.0/vertex-loader-demo.txt",
  name: "vertex-loader-demo.txt",
  contentType: "text/plain; charset=utf-8",
  body: "Vertex Loader (demo build)\n\nThis file stands in for the real loader in local development.\n",
};

const STATUS_UPDATES = [
  { id: 1, title: "Vertex Rust updated for the latest game patch", description: "Offsets refreshed after this week's Rust update. Restart the loader to pick up the new build.", type: "update" as const, daysAgo: 1 },
  { id: 2, title: "Scheduled maintenance finished", description: "License servers were moved to new hardware. Key activation is faster now.", type: "maintenance" as const, daysAgo: 4 },
  { id: 3, title: "Loader crash on some Windows 11 builds fixed", description: "A crash at start-up on Windows 11 24H2 has been fixed in loader 1.0.0.", type: "incident" as const, daysAgo: 9 },
];

export async function seedDemoData(db: Db, bucket: R2Bucket, now = Date.now()): Promise<void> {
  const existing = await db.select({ n: sql<number>`count(*)` }).from(users).where(sql`${users.id} in (${DEMO_ACCOUNTS[0].id}, ${DEMO_ACCOUNTS[1].id})`).get();
  if ((existing?.n ?? 0) < DEMO_ACCOUNTS.length) {
    for (const account of DEMO_ACCOUNTS) {
      await db.batch([
        db.insert(users).values({ id: account.id, email: account.email, passwordHash: await hashPassword(account.password), emailVerifiedAt: now, createdAt: now }).onConflictDoNothing(),
        db.insert(profiles).values({ id: account.id, username: account.username, createdAt: now }).onConflictDoNothing(),
      ]);
      if (account.admin) await db.insert(userRoles).values({ userId: account.id, role: "admin" }).onConflictDoNothing();
    }
  }

  // Through the catalogue, as staff stock it: each variant's label is the one buyers read
  // ("Lifetime", not Shopify's "Default Title").
  const codes = (await allVariants(demoCatalogueAdapter())).flatMap(({ product, variant, title }) =>
    Array.from({ length: 5 }, (_, i) => ({
      variantId: variant.id,
      variantTitle: title,
      // Unique across the shop: a code is a licence key.
      code: `DEMO-${product.handle.toUpperCase()}-${product.variants.indexOf(variant) + 1}${String(i + 1).padStart(3, "0")}`,
      createdAt: now,
    })),
  );
  for (const group of chunksOf(codes, 5)) await storeCodes(db, group);
  await seedSimulatedDiscord(db, now);
  await seedDemoReviews(db, now);

  await db
    .insert(statusUpdates)
    .values(STATUS_UPDATES.map(({ daysAgo, ...u }) => ({ ...u, createdAt: now - daysAgo * 86_400_000 })))
    .onConflictDoNothing();

  if (!(await bucket.head(DEMO_FILE.key))) {
    await bucket.put(DEMO_FILE.key, DEMO_FILE.body, { httpMetadata: { contentType: DEMO_FILE.contentType } });
  }
  await db
    .insert(downloadableFiles)
    .values({
      id: DEMO_FILE.id,
      fileName: DEMO_FILE.name,
      filePath: DEMO_FILE.key,
      fileSize: new TextEncoder().encode(DEMO_FILE.body).byteLength,
      contentType: DEMO_FILE.contentType,
      version: "1.0.0",
      description: "Loader for Vertex Rust. Run it as administrator before starting the game.",
      requiresSubscription: true,
      isActive: true,
      createdAt: now,
    })
    .onConflictDoNothing();
}
