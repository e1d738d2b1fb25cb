// Every e-mail about keys that the shop sends, in one place: the keys of an order, a backordered key
// that arrived, the crypto order's key, keys sent again or handed out by staff, keys that stopped
// working, and the admins' backorder and low-stock alerts. Each has a dedupe key, so a retried
// delivery never mails twice.
import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { formatUsd } from "~/lib/format";
import { orderKey } from "~/lib/orders";
import { chunksOf, type Db } from "../platform/db/client.server";
import { backorders, mailOutbox, productCodes, shopifyOrders, userRoles, users } from "../platform/db/schema.server";
import { escapeHtml } from "../platform/html.server";
import { type MailingDeps, type MailMessage, sendMail, sendMailWith } from "../platform/mail.server";
import { sha256Hex } from "../platform/tokens.server";

export interface MailedKey {
  variantTitle: string;
  code: string;
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);
const ACTIVATE = "Download the loader from your dashboard and activate it with your key.";

const keyList = (keys: MailedKey[]) => ({
  text: keys.map((k) => `${k.variantTitle}: ${k.code}`),
  html: `<ul>${keys.map((k) => `<li>${escapeHtml(k.variantTitle)}: <code>${escapeHtml(k.code)}</code></li>`).join("")}</ul>`,
});

/** Marks keys as sent to the buyer, alongside the message that sends them (chunked under D1's parameter limit). */
const markMailed = (db: Db, ids: number[], now: number) =>
  chunksOf(ids, 2).map((group) => db.update(productCodes).set({ mailedAt: now }).where(inArray(productCodes.id, group)));

const MAIL_LEASE_MS = 60_000;

/**
 * Runs `mail` as the one run mailing this order's keys: two deliveries of one order at the same
 * moment would otherwise both find a key unmailed and both send it. The other run waits a moment
 * for the lease (the holder needs milliseconds), then gives up with an error the queue retries.
 */
async function holdingMailLease(db: Db, orderId: string, mail: () => Promise<void>): Promise<void> {
  const lease = crypto.randomUUID();
  for (let attempt = 1; ; attempt++) {
    const now = Date.now();
    const held = await db
      .update(shopifyOrders)
      .set({ mailLease: lease, mailLeaseUntil: now + MAIL_LEASE_MS })
      .where(and(eq(shopifyOrders.id, orderId), or(isNull(shopifyOrders.mailLease), lt(shopifyOrders.mailLeaseUntil, now))))
      .returning({ id: shopifyOrders.id })
      .get();
    if (held) break;
    if (attempt === 30) throw new Error(`Order ${orderId}'s keys are being mailed by another run; trying again`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    await mail();
  } finally {
    await db.update(shopifyOrders).set({ mailLease: null, mailLeaseUntil: null }).where(and(eq(shopifyOrders.id, orderId), eq(shopifyOrders.mailLease, lease)));
  }
}

/**
 * Mails the order's keys that were handed out but not sent yet, marking them sent in the same
 * transaction as the message. The order's first e-mail thanks the buyer and lists them with how
 * many are still to come; a later one (units a later order body added) names only the new keys.
 * Units that waited for stock are mailed when their backorder is filled, not here.
 */
export async function mailOrderKeys(deps: MailingDeps, order: { id: string; name: string; email: string }, now = Date.now()): Promise<void> {
  const { db } = deps;
  const firstKey = `order-keys:${order.id}`;
  await holdingMailLease(db, order.id, async () => {
    const [keys, [waiting], first] = await Promise.all([
      db
        .select({ id: productCodes.id, code: productCodes.code, variantTitle: productCodes.variantTitle })
        .from(productCodes)
        .where(
          and(
            eq(productCodes.orderId, order.id),
            isNull(productCodes.mailedAt),
            isNull(productCodes.revokedAt),
            sql`not exists (select 1 from ${backorders} where ${backorders.orderId} = ${productCodes.orderId} and ${backorders.lineItemId} = ${productCodes.orderLineId} and ${backorders.unitIndex} = ${productCodes.unitIndex})`,
          ),
        )
        .orderBy(productCodes.orderLineId, productCodes.unitIndex),
      db
        .select({ n: sql<number>`count(*)` })
        .from(backorders)
        .where(and(eq(backorders.orderId, order.id), isNull(backorders.filledAt), isNull(backorders.cancelledAt))),
      db.select({ id: mailOutbox.id }).from(mailOutbox).where(eq(mailOutbox.dedupeKey, firstKey)).get(),
    ]);
    const pending = waiting?.n ?? 0;
    if (keys.length === 0 && (first || pending === 0)) return;
    const list = keyList(keys);
    const closing = `${ACTIVATE} Each key works on one PC.`;
    let message: MailMessage;
    if (first) {
      const intro = `Your order ${order.name} was updated. Your new product ${plural(keys.length, "key", "keys")}:`;
      message = {
        to: order.email,
        subject: `Your new ${BRAND} ${plural(keys.length, "key", "keys")} — order ${order.name}`,
        text: [intro, "", ...list.text, "", closing].join("\n"),
        html: `<p>${escapeHtml(intro)}</p>${list.html}<p>${closing}</p>`,
        dedupeKey: `${firstKey}:${await sha256Hex(keys.map((k) => k.id).join(","))}`,
      };
    } else {
      const pendingLine = pending > 0 ? `${pending} more ${plural(pending, "key", "keys")} will follow by e-mail as soon as ${plural(pending, "it is", "they are")} in stock.` : "";
      const text = [`Thank you for your order ${order.name}.`, ""];
      if (keys.length > 0) text.push("Your product keys:", ...list.text, "");
      if (pendingLine) text.push(pendingLine, "");
      text.push(closing);
      message = {
        to: order.email,
        subject:
          keys.length > 0
            ? `Your ${BRAND} ${plural(keys.length, "key", "keys")} — order ${order.name}`
            : `Order ${order.name} received — your ${plural(pending, "key follows", "keys follow")} soon`,
        text: text.join("\n"),
        html: `<p>Thank you for your order ${escapeHtml(order.name)}.</p>${keys.length > 0 ? `<p>Your product keys:</p>${list.html}` : ""}${
          pendingLine ? `<p>${escapeHtml(pendingLine)}</p>` : ""
        }<p>${closing}</p>`,
        dedupeKey: firstKey,
      };
    }
    await sendMailWith(deps, { ...message, orderKey: orderKey("shopify", order.id) }, markMailed(db, keys.map((k) => k.id), now), now);
  });
}

/** A key that waited for stock, now handed out. */
export async function mailBackorderFilled(
  deps: MailingDeps,
  backorder: { id: number; orderId: string; customerEmail: string },
  orderName: string,
  key: MailedKey & { id: number },
  now = Date.now(),
): Promise<void> {
  await sendMailWith(
    deps,
    {
      to: backorder.customerEmail,
      subject: `Your ${BRAND} key is ready — order ${orderName}`,
      text: `Good news: the key you were waiting for from order ${orderName} is in stock.\n\n${key.variantTitle}: ${key.code}\n\n${ACTIVATE}`,
      html: `<p>Good news: the key you were waiting for from order ${escapeHtml(orderName)} is in stock.</p><p>${escapeHtml(key.variantTitle)}: <code>${escapeHtml(key.code)}</code></p><p>${ACTIVATE}</p>`,
      dedupeKey: `backorder-filled:${backorder.id}`,
      orderKey: orderKey("shopify", backorder.orderId),
    },
    markMailed(deps.db, [key.id], now),
    now,
  );
}

/** The key of a completed crypto order. */
export async function mailCryptoKey(
  deps: MailingDeps,
  order: { id: string; orderNumber: string; customerEmail: string; cryptoType: string; amountCents: number; productTitle: string; variantTitle: string },
  code: string,
): Promise<void> {
  const product = `${order.productTitle} - ${order.variantTitle}`;
  const where = "You can also see it on the Crypto Tracker and under Subscriptions in your dashboard.";
  await sendMail(deps.db, deps.mail, deps.waitUntil, {
    to: order.customerEmail,
    subject: `Your ${BRAND} key — order ${order.orderNumber}`,
    text: `Your ${order.cryptoType} payment of ${formatUsd(order.amountCents)} for ${product} is confirmed.\n\nYour product key: ${code}\n\n${where}`,
    html: `<p>Your ${order.cryptoType} payment of ${formatUsd(order.amountCents)} for ${escapeHtml(product)} is confirmed.</p><p>Your product key: <code>${escapeHtml(code)}</code></p><p>${where}</p>`,
    dedupeKey: `crypto-key:${order.id}`,
    orderKey: orderKey("crypto", order.orderNumber),
  });
}

async function adminEmails(deps: MailingDeps): Promise<string[]> {
  const rows = await deps.db.select({ email: users.email }).from(users).innerJoin(userRoles, eq(userRoles.userId, users.id)).where(eq(userRoles.role, "admin"));
  return rows.map((r) => r.email);
}

/** Tells every admin that a paid order is waiting for stock. */
export async function mailBackorderAlert(deps: MailingDeps, order: { id: string; name: string; email: string }, count: number): Promise<void> {
  const keys = `${count} ${plural(count, "key", "keys")}`;
  for (const to of await adminEmails(deps)) {
    await sendMail(deps.db, deps.mail, deps.waitUntil, {
      to,
      subject: `Backorder: order ${order.name} is waiting for ${keys}`,
      text: `Order ${order.name} (${order.email}) was paid but ${keys} could not be handed out: the stock ran out.\nAdd codes in Manage Codes; waiting orders are filled first-in-first-out and the keys e-mailed automatically.`,
      dedupeKey: `backorder-alert:${order.id}:${to}`,
      orderKey: orderKey("shopify", order.id),
    });
  }
}

/**
 * Tells every admin that a variant's stock fell to its low-stock threshold: once per shortage (the
 * dedupe key carries the moment the alert was armed, so the next shortage mails again).
 */
export async function mailLowStockAlert(
  deps: MailingDeps,
  variant: { id: string; title: string; available: number; threshold: number; alertedAt: number },
): Promise<void> {
  const left = `${variant.available} ${plural(variant.available, "code", "codes")}`;
  for (const to of await adminEmails(deps)) {
    await sendMail(deps.db, deps.mail, deps.waitUntil, {
      to,
      subject: `Low stock: ${variant.title} has ${left} left`,
      text: `${variant.title} is down to ${left} (the alert is set at ${variant.threshold}).\nAdd codes in Manage Codes before it runs out; paid orders that find no code wait as backorders.\nThis alert is sent once: it goes out again after stock rises above ${variant.threshold} and falls back.`,
      dedupeKey: `low-stock:${variant.id}:${variant.alertedAt}:${to}`,
    });
  }
}

/** The order an e-mail is about: who gets it, the number they know, and its key for the timeline. */
export interface MailedOrder {
  to: string;
  name: string;
  /** "<source>:<reference>", as in the order index. */
  orderKey: string;
}

const KEYS_INTRO = {
  resend: (name: string) => `As requested, here are the product keys of your order ${name} again.`,
  replacement: (name: string) => `A key of your order ${name} was replaced. Your new product key:`,
  manual: (name: string) => `We have issued you a product key (${name}).`,
};

/**
 * Keys handed out by the shop's staff: an order's keys sent again, a replacement, or a key given by
 * hand. Keys with an `id` are marked sent in the same transaction as the message.
 */
export async function mailKeys(deps: MailingDeps, order: MailedOrder, keys: (MailedKey & { id?: number | null })[], why: keyof typeof KEYS_INTRO, dedupeKey: string): Promise<void> {
  if (keys.length === 0) return;
  const intro = KEYS_INTRO[why](order.name);
  const ids = keys.flatMap((k) => (k.id == null ? [] : [k.id]));
  await sendMailWith(deps, {
    to: order.to,
    subject: `Your ${BRAND} ${plural(keys.length, "key", "keys")} — order ${order.name}`,
    text: [intro, "", ...keys.map((k) => `${k.variantTitle}: ${k.code}`), "", `${ACTIVATE} Each key works on one PC.`].join("\n"),
    html: `<p>${escapeHtml(intro)}</p><ul>${keys.map((k) => `<li>${escapeHtml(k.variantTitle)}: <code>${escapeHtml(k.code)}</code></li>`).join("")}</ul><p>${ACTIVATE} Each key works on one PC.</p>`,
    dedupeKey,
    orderKey: order.orderKey,
  }, markMailed(deps.db, ids, Date.now()));
}

/**
 * Keys that stopped working — a refund, a cancellation or a revocation by the shop — each named,
 * with why. Nothing is sent when no key stopped.
 */
export async function mailKeysStopped(deps: MailingDeps, order: MailedOrder, keys: MailedKey[], why: string, dedupeKey: string): Promise<void> {
  if (keys.length === 0 || order.to === "") return;
  const head = `${plural(keys.length, "This key", "These keys")} from your order ${order.name} no longer ${plural(keys.length, "works", "work")}:`;
  const because = `Reason: ${why}`;
  const contact = "If you think this is a mistake, contact our support.";
  await sendMail(deps.db, deps.mail, deps.waitUntil, {
    to: order.to,
    subject: `Your ${BRAND} ${plural(keys.length, "key was", "keys were")} revoked — order ${order.name}`,
    text: [head, "", ...keys.map((k) => `${k.variantTitle}: ${k.code}`), "", because, "", contact].join("\n"),
    html: `<p>${escapeHtml(head)}</p><ul>${keys.map((k) => `<li>${escapeHtml(k.variantTitle)}: <code>${escapeHtml(k.code)}</code></li>`).join("")}</ul><p>${escapeHtml(because)}</p><p>${contact}</p>`,
    dedupeKey,
    orderKey: order.orderKey,
  });
}
