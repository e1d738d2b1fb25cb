// The audit log as staff read it: a human label for each action the shop records, and where a
// subject that names an order leads. Shared by the audit log page and anything that shows entries.
import { ORDER_SOURCES, type OrderSource, orderPath } from "./orders";

const ACTION_LABELS: Record<string, string> = {
  "2fa.enable": "Turned on two-factor sign-in",
  "2fa.disable": "Turned off two-factor sign-in",
  "affiliate.approve": "Approved an affiliate",
  "affiliate.decline": "Declined an affiliate",
  "affiliate.pause": "Paused an affiliate",
  "affiliate.resume": "Resumed an affiliate",
  "affiliate.payout-paid": "Marked an affiliate payout paid",
  "chat.ban": "Banned a member from the chat",
  "chat.delete": "Removed a chat message",
  "chat.mute": "Muted a member in the chat",
  "chat.pin": "Pinned a chat message",
  "chat.purge": "Removed a member's last hour of chat",
  "chat.report-dismiss": "Dismissed a chat report",
  "chat.room-archive": "Archived a chat room",
  "chat.room-create": "Created a chat room",
  "chat.room-restore": "Restored a chat room",
  "chat.room-settings": "Changed a chat room's rules",
  "chat.unban": "Lifted a chat ban",
  "chat.unmute": "Lifted a chat mute",
  "chat.unpin": "Unpinned a chat message",
  "crypto-order.fulfil": "Fulfilled a crypto order",
  "crypto-order.cancel": "Cancelled a crypto order",
  "crypto-order.resolve": "Marked a crypto order handled",
  "crypto-order.review": "Sent a crypto order for review",
  "block.add": "Blocked",
  "block.lift": "Lifted a block",
  "customer.block": "Blocked a customer with what is known of them",
  "customer.ban": "Banned an account",
  "customer.unban": "Unbanned an account",
  "customer.end-sessions": "Signed an account out everywhere",
  "customer.role": "Changed an account's role",
  "export.affiliate-ledger": "Exported the affiliate ledger",
  "export.keys": "Exported keys",
  "export.orders": "Exported orders",
  "export.dispute-evidence": "Exported a dispute's evidence",
  "dispute.opened": "A payment dispute was opened",
  "dispute.updated": "A payment dispute changed",
  "dispute.won": "A payment dispute was won",
  "dispute.lost": "A payment dispute was lost",
  "dispute.licences-suspended": "Keys suspended while the payment is disputed",
  "dispute.licences-restored": "Keys restored: the dispute was won",
  "dispute.keys-revoked": "Keys revoked: the dispute was lost",
  "dispute.commission-voided": "Affiliate commission voided while the payment is disputed",
  "dispute.commission-restored": "Affiliate commission restored: the dispute was won",
  "dispute.balance-held": "Affiliate's balance held while the payment is disputed",
  "dispute.balance-released": "Affiliate's held balance released: the dispute was won",
  "discord.guild": "Chose the Discord server",
  "discord.link": "Linked a Discord account",
  "discord.member.add": "Added a member to the Discord server",
  "discord.role.grant": "Gave a Discord role",
  "discord.role.remove": "Took a Discord role back",
  "discord.rule.add": "Added a Discord role rule",
  "discord.rule.remove": "Removed a Discord role rule",
  "discord.unlink": "Unlinked a Discord account",
  "download.upload": "Uploaded a download",
  "job.retry": "Retried a failed job",
  "legal.edit": "Edited a legal page",
  "fraud.settings": "Changed the fraud settings",
  "licence.ban": "Banned a key",
  "licence.flagged": "A key was flagged as shared",
  "licence.auto-suspended": "A shared key was suspended automatically",
  "licence.risk-suspend": "Suspended a key at risk",
  "licence.risk-ban": "Banned a key at risk",
  "licence.risk-dismiss": "Dismissed a key at risk",
  "order.held": "Order held for review",
  "order.release": "Released a held order",
  "licence.unban": "Unbanned a key",
  "licence.ban-hwid": "Banned a PC",
  "licence.unban-hwid": "Unbanned a PC",
  "licence.reset-hwid": "Reset a key's PC",
  "licence.owner-reset": "Owner reset their key's PC",
  "order.correct-email": "Corrected a buyer's e-mail address",
  "order.manual": "Handed out a key by hand",
  "order.replace-key": "Replaced a key",
  "order.resend": "Sent an order's keys again",
  "order.reveal-key": "Revealed a key",
  "order.revoke-key": "Revoked a key",
  "passkey.add": "Added a passkey",
  "passkey.rename": "Renamed a passkey",
  "passkey.remove": "Removed a passkey",
  "passkey.sign-in": "Signed in with a passkey",
  "passkey.counter-refused": "Refused a passkey (counter went back)",
  "password.change": "Changed the password",
  "password.reset": "Reset the password",
  "password.reset-request": "Asked for a password reset",
  "registration.replace": "Replaced an unverified registration",
  "renewal.refused": "A payment named a licence it could not renew: a new key went out instead",
  "reseller.credit": "Credited a reseller balance",
  "review.hide": "Hid a review",
  "review.unhide": "Showed a hidden review again",
  "session.end": "Ended a session",
  "session.end-others": "Ended all other sessions",
  "sign-in.banned": "Refused a banned account's sign-in",
  "staff.sign-in": "Staff signed in",
  "stock.threshold": "Set a low-stock alert",
  "storefront.recent-purchasers": "Set the recent-purchasers threshold",
  "storefront.sale": "Set a product's sale",
  "storefront.sale-end": "Ended a product's sale",
  "stock.threshold-clear": "Removed a low-stock alert",
  "webhook.rejected": "Rejected a webhook",
};

/** "licence.ban" → "Banned a key"; an action without a label reads as itself, made readable. */
export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action.replace(/[.-]/g, " ").replace(/^./, (c) => c.toUpperCase());
}

/** The group an action belongs to: its part before the first dot, with the dot ("licence."). */
export function actionGroup(action: string): string {
  const dot = action.indexOf(".");
  return dot === -1 ? action : action.slice(0, dot + 1);
}

/** The order a subject names ("<source>:<reference>", as order_index keys it), or null when it names no order. */
export function orderSubject(subject: string): { source: OrderSource; reference: string } | null {
  const colon = subject.indexOf(":");
  const source = subject.slice(0, colon);
  const reference = subject.slice(colon + 1);
  return colon > 0 && reference !== "" && (ORDER_SOURCES as readonly string[]).includes(source)
    ? { source: source as OrderSource, reference }
    : null;
}

/** The back office's page of the order a subject names, or null when it names no order. */
export function orderPathOf(subject: string): string | null {
  const order = orderSubject(subject);
  return order ? orderPath(order) : null;
}
