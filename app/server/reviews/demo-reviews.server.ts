// The local checkout's demo reviews and sale (decisions 074 and 075): ten reviews of the flagship
// product by demo members (accounts without a password: nobody signs in as them), and a sale on it,
// so a local shop shows its product page as a real one would. Only the development seed writes them;
// production has no such accounts, reviews or sale.
import { DAY_MS } from "~/lib/time";
import demoCatalogue from "../catalogue/demo-catalogue.json";
import type { Db } from "../platform/db/client.server";
import { productReviews, productSales, profiles, users } from "../platform/db/schema.server";

const DEMO_REVIEWS = [
  {
    name: "JakeM",
    rating: 5,
    daysAgo: 2,
    text: "Set up in five minutes. ESP is clean and the aim feels natural, nobody on the server suspected a thing.",
  },
  {
    name: "SofiaR",
    rating: 5,
    daysAgo: 4,
    text: "Key arrived instantly by e-mail. Support walked me through the loader on Discord at 2am.",
  },
  { name: "TomK", rating: 5, daysAgo: 7, text: "Best recoil control I've used. No frame drops at all on a GTX 1660." },
  {
    name: "LukasB",
    rating: 4,
    daysAgo: 8,
    text: "Great features, the menu took me a bit to learn. Configs from the community helped a lot.",
  },
  { name: "EmmaW", rating: 5, daysAgo: 14, text: "Weekly plan was perfect for wipe day. Upgraded to monthly right after." },
  { name: "DanielP", rating: 5, daysAgo: 15, text: "Updated within hours of the last patch. That's what you pay for." },
  { name: "NoahF", rating: 5, daysAgo: 21, text: "Loot ESP alone is worth it. Found three stashes in my first hour." },
  { name: "MiaS", rating: 5, daysAgo: 22, text: "Clean code, no crashes. Stream-proof overlay works as advertised." },
  { name: "OliverH", rating: 5, daysAgo: 30, text: "Replacement key came within the hour when I got flagged on day one. Solid warranty." },
  { name: "AvaL", rating: 5, daysAgo: 31, text: "Lifetime plan paid for itself. The team keeps adding features." },
];

/** The demo sale's words, as the product page's sale box shows them, and how long after seeding it runs. */
const DEMO_SALE = { label: "20% OFF", days: 7 };

const reviewerId = (i: number) => `00000000-0000-4000-8000-0000000001${String(i).padStart(2, "0")}`;

export async function seedDemoReviews(db: Db, now: number): Promise<void> {
  const product = demoCatalogue.products.edges[0]!.node;
  const reviewers = DEMO_REVIEWS.map((review, i) => ({ ...review, id: reviewerId(i), at: now - review.daysAgo * DAY_MS }));
  await db.batch([
    db
      .insert(users)
      .values(
        reviewers.map(({ id, name, at }) => ({
          id,
          email: `${name.toLowerCase()}@reviewers.example.com`,
          emailVerifiedAt: at,
          createdAt: at,
        })),
      )
      .onConflictDoNothing(),
    db
      .insert(profiles)
      .values(reviewers.map(({ id, name, at }) => ({ id, username: name, createdAt: at })))
      .onConflictDoNothing(),
    db
      .insert(productReviews)
      .values(
        reviewers.map(({ id, rating, text, at }) => ({
          productId: product.id,
          productHandle: product.handle,
          productTitle: product.title,
          userId: id,
          rating,
          body: text,
          createdAt: at,
          updatedAt: at,
        })),
      )
      .onConflictDoNothing(),
    db
      .insert(productSales)
      .values({ productId: product.id, label: DEMO_SALE.label, endsAt: now + DEMO_SALE.days * DAY_MS, updatedAt: now })
      .onConflictDoNothing(),
  ]);
}
