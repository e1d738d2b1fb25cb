// E-mails to the shop's admins about stock: a paid order waiting for codes, and a variant down to
// its low-stock threshold. Each has a dedupe key per admin, so a retried delivery never mails twice.
import { plural } from "~/lib/format";
import { orderKey } from "~/lib/orders";
import { adminAddresses, type MailingDeps, sendMail } from "../platform/mail.server";

const adminEmails = (deps: MailingDeps) => adminAddresses(deps.db);

/** Tells every admin that a paid order is waiting for stock. */
export async function mailBackorderAlert(
  deps: MailingDeps,
  order: { id: string; name: string; email: string },
  count: number,
): Promise<void> {
  const keys = `${count} ${plural(count, "key", "keys")}`;
  for (const to of await adminEmails(deps)) {
    await sendMail(deps, {
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
    await sendMail(deps, {
      to,
      subject: `Low stock: ${variant.title} has ${left} left`,
      text: `${variant.title} is down to ${left} (the alert is set at ${variant.threshold}).\nAdd codes in Manage Codes before it runs out; paid orders that find no code wait as backorders.\nThis alert is sent once: it goes out again after stock rises above ${variant.threshold} and falls back.`,
      dedupeKey: `low-stock:${variant.id}:${variant.alertedAt}:${to}`,
    });
  }
}
