// Every e-mail that hands a buyer keys, or tells them keys stopped working, is built here: an
// order's keys, a key that waited for stock, a crypto order's key, keys sent again, replaced or
// handed out by staff, and revoked keys. Keys a message hands out are marked sent (`mailed_at`) in
// the same D1 transaction as its outbox row; each message has a dedupe key, so a retried delivery
// never mails twice (decision 043).
import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { formatUsd, plural } from "~/lib/format";
import { orderKey } from "~/lib/orders";
import { chunksOf, type Db } from "../platform/db/client.server";
import { backorders, mailOutbox, productCodes, shopifyOrders } from "../platform/db/schema.server";
import { escapeHtml } from "../platform/html.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import { sha256Hex } from "../platform/tokens.server";
import type { RevokedKey } from "./revoke.server";

export interface MailedKey {
  variantTitle: string;
  code: string;
}

/** The order an e-mail is about: who gets it, the number they know, and its key for the timeline. */
export interface MailedOrder {
  to: string;
  name: string;
  /** "<source>:<reference>", as in the order index. */
  orderKey: string;
}

const ACTIVATE = "Download the loader from your dashboard and activate it with your key.";
const CLOSING = `${ACTIVATE} Each key works on one PC.`;

/**
 * A part of a key e-mail: a paragraph; a list of keys (after a line that leads into it, if any);
 * or one key on a line of its own, after its label.
 */
type KeyMailPart = string | { keys: MailedKey[]; lead?: string } | { label: string; code: string };

/** The text and HTML of a key e-mail: the one place a key is written into a message. */
function keyMailBody(parts: KeyMailPart[]): { text: string; html: string } {
  const text = parts.map((part) => {
    if (typeof part === "string") return part;
    if ("keys" in part) return [...(part.lead ? [part.lead] : []), ...part.keys.map((k) => `${k.variantTitle}: ${k.code}`)].join("\n");
    return `${part.label}: ${part.code}`;
  });
  const html = parts.map((part) => {
    if (typeof part === "string") return `<p>${escapeHtml(part)}</p>`;
    if ("keys" in part) {
      const items = part.keys.map((k) => `<li>${escapeHtml(k.variantTitle)}: <code>${escapeHtml(k.code)}</code></li>`).join("");
      return `${part.lead ? `<p>${escapeHtml(part.lead)}</p>` : ""}<ul>${items}</ul>`;
    }
    return `<p>${escapeHtml(part.label)}: <code>${escapeHtml(part.code)}</code></p>`;
  });
  return { text: text.join("\n\n"), html: html.join("") };
}

/** Marks keys as sent to the buyer, alongside the message that sends them (chunked under D1's parameter limit). */
const markMailed = (db: Db, ids: number[], now: number) =>
  chunksOf(ids, 2).map((group) => db.update(productCodes).set({ mailedAt: now }).where(inArray(productCodes.id, group)));

interface KeyMail {
  to: string;
  subject: string;
  parts: KeyMailPart[];
  dedupeKey: string;
  orderKey?: string;
  /** The codes (by id) the message hands out, marked sent in its transaction. */
  handsOut?: number[];
}

/** Writes a key e-mail to the outbox, marking the keys it hands out as sent in the same transaction. */
async function sendKeyMail(deps: MailingDeps, mail: KeyMail, now = Date.now()): Promise<void> {
  const message = { to: mail.to, subject: mail.subject, ...keyMailBody(mail.parts), dedupeKey: mail.dedupeKey, orderKey: mail.orderKey };
  await sendMail(deps, message, { alongside: markMailed(deps.db, mail.handsOut ?? [], now), now });
}

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
    await db
      .update(shopifyOrders)
      .set({ mailLease: null, mailLeaseUntil: null })
      .where(and(eq(shopifyOrders.id, orderId), eq(shopifyOrders.mailLease, lease)));
  }
}

/**
 * Mails the order's keys that were handed out but not sent yet, marking them sent in the same
 * transaction as the message. The order's first e-mail thanks the buyer and lists them with how
 * many are still to come; a later one (units a later order body added) names only the new keys.
 * Units that waited for stock are mailed when their backorder is filled, not here.
 */
export async function mailOrderKeys(
  deps: MailingDeps,
  order: { id: string; name: string; email: string },
  now = Date.now(),
): Promise<void> {
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
    const mail = { to: order.email, orderKey: orderKey("shopify", order.id), handsOut: keys.map((k) => k.id) };
    if (first) {
      await sendKeyMail(
        deps,
        {
          ...mail,
          subject: `Your new ${BRAND} ${plural(keys.length, "key", "keys")} — order ${order.name}`,
          parts: [`Your order ${order.name} was updated. Your new product ${plural(keys.length, "key", "keys")}:`, { keys }, CLOSING],
          dedupeKey: `${firstKey}:${await sha256Hex(keys.map((k) => k.id).join(","))}`,
        },
        now,
      );
      return;
    }
    const pendingLine =
      pending > 0
        ? `${pending} more ${plural(pending, "key", "keys")} will follow by e-mail as soon as ${plural(pending, "it is", "they are")} in stock.`
        : "";
    await sendKeyMail(
      deps,
      {
        ...mail,
        subject:
          keys.length > 0
            ? `Your ${BRAND} ${plural(keys.length, "key", "keys")} — order ${order.name}`
            : `Order ${order.name} received — your ${plural(pending, "key follows", "keys follow")} soon`,
        parts: [
          `Thank you for your order ${order.name}.`,
          ...(keys.length > 0 ? [{ lead: "Your product keys:", keys }] : []),
          ...(pendingLine ? [pendingLine] : []),
          CLOSING,
        ],
        dedupeKey: firstKey,
      },
      now,
    );
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
  await sendKeyMail(
    deps,
    {
      to: backorder.customerEmail,
      subject: `Your ${BRAND} key is ready — order ${orderName}`,
      parts: [
        `Good news: the key you were waiting for from order ${orderName} is in stock.`,
        { label: key.variantTitle, code: key.code },
        ACTIVATE,
      ],
      dedupeKey: `backorder-filled:${backorder.id}`,
      orderKey: orderKey("shopify", backorder.orderId),
      handsOut: [key.id],
    },
    now,
  );
}

/** The key of a completed crypto order. */
export async function mailCryptoKey(
  deps: MailingDeps,
  order: {
    id: string;
    orderNumber: string;
    customerEmail: string;
    cryptoType: string;
    amountCents: number;
    productTitle: string;
    variantTitle: string;
  },
  code: string,
): Promise<void> {
  const product = `${order.productTitle} - ${order.variantTitle}`;
  await sendKeyMail(deps, {
    to: order.customerEmail,
    subject: `Your ${BRAND} key — order ${order.orderNumber}`,
    parts: [
      `Your ${order.cryptoType} payment of ${formatUsd(order.amountCents)} for ${product} is confirmed.`,
      { label: "Your product key", code },
      "You can also see it on the Crypto Tracker and under Subscriptions in your dashboard.",
    ],
    dedupeKey: `crypto-key:${order.id}`,
    orderKey: orderKey("crypto", order.orderNumber),
  });
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
export async function mailKeys(
  deps: MailingDeps,
  order: MailedOrder,
  keys: (MailedKey & { id?: number | null })[],
  why: keyof typeof KEYS_INTRO,
  dedupeKey: string,
): Promise<void> {
  if (keys.length === 0) return;
  await sendKeyMail(deps, {
    to: order.to,
    subject: `Your ${BRAND} ${plural(keys.length, "key", "keys")} — order ${order.name}`,
    parts: [KEYS_INTRO[why](order.name), { keys }, CLOSING],
    dedupeKey,
    orderKey: order.orderKey,
    handsOut: keys.flatMap((k) => (k.id == null ? [] : [k.id])),
  });
}

/**
 * Keys that stopped working — a refund, a cancellation or a revocation by the shop — each named,
 * with why. Nothing is sent when no key stopped.
 */
export async function mailKeysStopped(
  deps: MailingDeps,
  order: MailedOrder,
  keys: MailedKey[],
  why: string,
  dedupeKey: string,
): Promise<void> {
  if (keys.length === 0 || order.to === "") return;
  await sendKeyMail(deps, {
    to: order.to,
    subject: `Your ${BRAND} ${plural(keys.length, "key was", "keys were")} revoked — order ${order.name}`,
    parts: [
      `${plural(keys.length, "This key", "These keys")} from your order ${order.name} no longer ${plural(keys.length, "works", "work")}:`,
      { keys },
      `Reason: ${why}`,
      "If you think this is a mistake, contact our support.",
    ],
    dedupeKey,
    orderKey: order.orderKey,
  });
}

/**
 * A card order's buyer hears which of the keys they were sent a refund or cancellation stopped
 * (once: the dedupe key names the event). A key revoked before it was ever mailed is not news to them.
 */
export async function mailRevokedKeys(
  deps: MailingDeps,
  orderId: string,
  revoked: RevokedKey[],
  why: string,
  dedupeKey: string,
): Promise<void> {
  const told = revoked.filter((k) => k.mailedAt !== null);
  const to = told.find((k) => k.customerEmail)?.customerEmail;
  if (!to) return;
  const order = await deps.db.select({ name: shopifyOrders.name }).from(shopifyOrders).where(eq(shopifyOrders.id, orderId)).get();
  await mailKeysStopped(deps, { to, name: order?.name ?? orderId, orderKey: orderKey("shopify", orderId) }, told, why, dedupeKey);
}
