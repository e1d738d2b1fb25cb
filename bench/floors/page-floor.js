// The page floor: the least work a cached storefront page can cost, served by the same runtime as
// the app. It answers the very bytes and headers the app's cached home and product pages answer
// (captured by the bench before it starts), from memory, each at its own path.
// Given a D1 database (page-floor.reads.wrangler.toml), it first reads what the product page
// shows from D1, as a render of that page must: the product's latest status, its shown reviews'
// count, average and newest six, and in one statement its paid orders of the last day by card
// and in crypto, the threshold for saying so and its running sale: one batch of four statements.
// No router, no ORM, no rendering.
import home from "./page-floor.html";
import product from "./page-floor.product.html";
import pages from "./page-floor.json";

const DAY_MS = 24 * 60 * 60 * 1000;
const SHOWN = "not exists (select 1 from review_moderation m where m.product_id = r.product_id and m.user_id = r.user_id)";
// Each statement with its values, from the product's id, its variants' ids and the time now.
const READS = [
  [
    `select product_id, product_status, created_at from status_updates s
      where product_id in (select value from json_each(?)) and product_status is not null
      and not exists (select 1 from status_updates n where n.product_id = s.product_id and n.product_status is not null
        and (n.created_at > s.created_at or (n.created_at = s.created_at and n.id > s.id)))`,
    (p) => [JSON.stringify([p.id])],
  ],
  [`select count(*) as count, round(avg(rating), 1) as average from product_reviews r where r.product_id = ? and ${SHOWN}`, (p) => [p.id]],
  [
    `select r.id, p.username, r.rating, r.body, r.created_at, r.updated_at from product_reviews r
      left join profiles p on p.id = r.user_id where r.product_id = ? and ${SHOWN}
      order by r.created_at desc, r.id desc limit 6`,
    (p) => [p.id],
  ],
  [
    `select
      (select count(distinct v.order_id) from shopify_order_variants v join shopify_orders o on o.id = v.order_id
        where v.variant_id in (select value from json_each(?1)) and v.paid_at > ?2 and o.paid_at > ?2
        and o.refunded_at is null and o.cancelled_at is null) as card,
      (select count(*) from crypto_orders c where c.variant_id in (select value from json_each(?1)) and c.paid_at > ?2
        and c.purpose = 'key' and c.status <> 'cancelled') as crypto,
      (select recent_purchasers_threshold from storefront_settings where id = 1) as threshold,
      s.label, s.ends_at
    from (select 1) left join product_sales s on s.product_id = ?3 and s.ends_at > ?4`,
    (p, now) => [JSON.stringify(p.variantIds), now - DAY_MS, p.id, now],
  ],
];

/** The product page's data, read in one round trip as the app's render reads it. */
function readProduct(db) {
  const now = Date.now();
  return db.batch(READS.map(([text, values]) => db.prepare(text).bind(...values(pages.productData, now))));
}

export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname !== pages.productPath) return new Response(home, { headers: pages.home });
    if (env.DB) await readProduct(env.DB);
    return new Response(product, { headers: pages.product });
  },
};
