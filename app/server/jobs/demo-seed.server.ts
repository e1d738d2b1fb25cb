// Demo data for local development: two accounts, stock for every demo variant, a few status
// updates, a stable and a beta release of the demo product and its chat room, the simulated Discord
// server with its role rules, and the demo reviews and sale. Every insert is keyed, so running it again changes nothing.
// Only the development build calls this; production never contains demo accounts.
import { sql } from "drizzle-orm";
import { allVariants, demoCatalogueAdapter } from "../catalogue/catalogue.server";
import { chunksOf, type Db } from "../platform/db/client.server";
import { chatRooms, profiles, releases, statusUpdates, userRoles, users } from "../platform/db/schema.server";
import { sha256Hex } from "../platform/tokens.server";
import { hashPassword } from "../accounts/password.server";
import { storeCodes } from "../keys/stock.server";
import { seedSimulatedDiscord } from "../discord/dev-discord.server";
import { seedDemoReviews } from "../reviews/demo-reviews.server";

export const DEMO_ACCOUNTS = [
  { id: "00000000-0000-4000-8000-000000000001", email: "admin@example.com", username: "admin", password: "admin-demo-1", admin: true },
  { id: "00000000-0000-4000-8000-000000000002", email: "member@example.com", username: "member", password: "member-demo-1", admin: false },
] as const;

// The demo product's releases, small text files standing in for the loader: stable for every plan,
// beta for the plans with Beta Access. The stable one keeps the id and object of the single file the
// old downloads list was seeded with, which the migration to releases moved to the same place.
const DEMO_RELEASES = [
  {
    id: "00000000-0000-4000-8000-0000000000f1",
    channel: "stable",
    version: "1.0.0",
    key: "vertex-loader/1.0.0/vertex-loader-demo.txt",
    body: "Vertex Loader (demo build)\n\nThis file stands in for the real loader in local development.\n",
    notes: "Loader for Vertex Rust. Run it as administrator before starting the game.",
  },
  {
    id: "00000000-0000-4000-8000-0000000000f2",
    channel: "beta",
    version: "1.1.0-beta.1",
    key: "vertex-loader/1.1.0-beta.1/vertex-loader-demo.txt",
    body: "Vertex Loader 1.1.0-beta.1 (demo build)\n\nThis file stands in for the next loader's beta in local development.\n",
    notes: "**Beta:** the next loader, for members with Beta Access.\n\n- Faster start-up\n- New overlay settings",
  },
] as const;

const STATUS_UPDATES = [
  {
    id: 1,
    title: "Vertex Rust updated for the latest game patch",
    description: "Offsets refreshed after this week's Rust update. Restart the loader to pick up the new build.",
    type: "update" as const,
    daysAgo: 1,
  },
  {
    id: 2,
    title: "Scheduled maintenance finished",
    description: "License servers were moved to new hardware. Key activation is faster now.",
    type: "maintenance" as const,
    daysAgo: 4,
  },
  {
    id: 3,
    title: "Loader crash on some Windows 11 builds fixed",
    description: "A crash at start-up on Windows 11 24H2 has been fixed in loader 1.0.0.",
    type: "incident" as const,
    daysAgo: 9,
  },
];

export async function seedDemoData(db: Db, bucket: R2Bucket, now = Date.now()): Promise<void> {
  const existing = await db
    .select({ n: sql<number>`count(*)` })
    .from(users)
    .where(sql`${users.id} in (${DEMO_ACCOUNTS[0].id}, ${DEMO_ACCOUNTS[1].id})`)
    .get();
  if ((existing?.n ?? 0) < DEMO_ACCOUNTS.length) {
    for (const account of DEMO_ACCOUNTS) {
      await db.batch([
        db
          .insert(users)
          .values({
            id: account.id,
            email: account.email,
            passwordHash: await hashPassword(account.password),
            emailVerifiedAt: now,
            createdAt: now,
          })
          .onConflictDoNothing(),
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

  // The demo product's chat room, for its licence holders (general and announcements come with the migration).
  await db
    .insert(chatRooms)
    .values({ slug: "vertex-rust", name: "Vertex Rust", kind: "product", product: "Vertex Rust", createdAt: now })
    .onConflictDoNothing();

  for (const release of DEMO_RELEASES) {
    const bytes = new TextEncoder().encode(release.body);
    if (!(await bucket.head(release.key)))
      await bucket.put(release.key, bytes, { httpMetadata: { contentType: "text/plain; charset=utf-8" } });
    await db
      .insert(releases)
      .values({
        id: release.id,
        product: "Vertex Rust",
        version: release.version,
        channel: release.channel,
        notes: release.notes,
        fileName: "vertex-loader-demo.txt",
        objectKey: release.key,
        contentType: "text/plain; charset=utf-8",
        size: bytes.byteLength,
        sha256: await sha256Hex(release.body),
        state: "published",
        createdAt: now,
        publishedAt: now,
      })
      .onConflictDoNothing();
  }
}
