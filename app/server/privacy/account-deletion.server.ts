// Deleting an account (decision 099), by its member from the Security page or by staff at the
// member's request. What goes: every way to sign in and every session, the member's chat messages
// and reviews, their Discord roles (the role sync takes them back), their own keys (revoked, and
// said so in a last e-mail). What stays, under the account's pseudonym instead of its address: the
// orders, keys sold and money moved, which accounting needs, and the security log. Each domain
// writes its own tables; the statements run in one D1 transaction with the last e-mail, so a
// deletion is never half done, and doing it again completes what a crash interrupted.
import { BRAND } from "~/lib/brand";
import { maskKey } from "~/lib/licences";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { accountClosure, closableAccount, confirmAccountOwner, pseudonymOf } from "../accounts/account-closure.server";
import type { StaffActor } from "../accounts/customer-actions.server";
import { endSessions, type SessionDeps } from "../accounts/session.server";
import { affiliateOfDeletedAccount } from "../affiliates/programme.server";
import { buyerOfDeletedAccount } from "../affiliates/ledger.server";
import { checkoutsOfDeletedAccount } from "../catalogue/checkout.server";
import { chatMessagesOf } from "../chat/chat-gateway.server";
import { cryptoOrdersOfDeletedAccount } from "../crypto/crypto-orders.server";
import { queueRoleSync } from "../discord/role-sync.server";
import { codesOfDeletedAccount } from "../keys/revoke.server";
import { licencesEndingWithAccount, licencesOfDeletedAccount } from "../licences/licence-records.server";
import { ordersOfDeletedAccount } from "../orders/order-actions.server";
import { audit } from "../platform/audit.server";
import type { Caller } from "../platform/caller.server";
import type { JobQueue } from "../platform/job-registry.server";
import { CLOSING_MAIL_PREFIX, mailOfDeletedAccount, type MailingDeps, sendMail } from "../platform/mail.server";
import { requestsOfDeletedAccount } from "../replacements/replacement-requests.server";
import { moderationOfDeletedAccount } from "../reviews/review-moderation.server";
import { reviewedPagesOf, reviewsOfDeletedAccount } from "../reviews/reviews.server";

export interface DeletionDeps extends MailingDeps, SessionDeps {
  /** The chat room, which deletes the member's messages. */
  env: Pick<Env, "CHAT_ROOM">;
  /** The role sync, which takes back the Discord roles the shop gave. */
  queue: JobQueue<"discord-sync">;
}

export interface DeletedAccount {
  /** Keys that stopped working. */
  keysRevoked: number;
  chatMessagesDeleted: number;
  /** Product pages (handles) that showed the member's reviews: their cached copies are stale. */
  reviewedPages: string[];
}

type DeletedBy = { kind: "member"; ip: string | null } | { kind: "staff"; actor: StaffActor; reason: string };

/** The member deletes their own account, having proved it is theirs (password, and the second factor where on). */
export async function deleteOwnAccount(
  deps: DeletionDeps,
  totpKey: string,
  viewer: Viewer,
  caller: Caller,
  input: { password: string; code: string },
  now = Date.now(),
): Promise<Result<DeletedAccount>> {
  const closable = await closableAccount(deps.db, viewer.id);
  if (!closable.ok) return closable;
  const confirmed = await confirmAccountOwner(deps.db, totpKey, viewer, caller, input, now);
  if (!confirmed.ok) return confirmed;
  return deleteAccount(deps, viewer.id, { kind: "member", ip: caller.ip }, now);
}

/** Staff delete an account because its member asked them to (the reason names the request), audited. */
export async function deleteAccountOnRequest(
  deps: DeletionDeps,
  actor: StaffActor,
  userId: string,
  reason: string,
  now = Date.now(),
): Promise<Result<DeletedAccount>> {
  if (userId === actor.viewer.id) return fail("forbidden", "Delete your own account from your Security page");
  return deleteAccount(deps, userId, { kind: "staff", actor, reason }, now);
}

async function deleteAccount(deps: DeletionDeps, userId: string, by: DeletedBy, now: number): Promise<Result<DeletedAccount>> {
  const { db } = deps;
  const closable = await closableAccount(db, userId);
  if (!closable.ok) return closable;
  const { email, username } = closable.value;
  const account = { userId, email, pseudonym: pseudonymOf(userId) };
  const [ending, reviewedPages] = await Promise.all([licencesEndingWithAccount(db, email), reviewedPagesOf(db, userId)]);
  // The words first: should the rest fail, the member asks again and nothing they wrote is left behind.
  const erased = await chatMessagesOf(deps.env, db, userId, { erase: true });
  const closingKey = `${CLOSING_MAIL_PREFIX}${userId}`;
  await sendMail(deps, closingMail({ email, username, keys: ending, byStaff: by.kind === "staff", dedupeKey: closingKey }), {
    now,
    alongside: [
      // Keys stop before the address leaves them.
      ...licencesOfDeletedAccount(db, account, now),
      codesOfDeletedAccount(db, account, now),
      ...ordersOfDeletedAccount(db, account),
      ...cryptoOrdersOfDeletedAccount(db, account, now),
      checkoutsOfDeletedAccount(db, account),
      buyerOfDeletedAccount(db, account),
      affiliateOfDeletedAccount(db, userId),
      reviewsOfDeletedAccount(db, userId),
      moderationOfDeletedAccount(db, userId),
      requestsOfDeletedAccount(db, userId),
      mailOfDeletedAccount(db, email, closingKey),
      ...accountClosure(db, userId, now),
    ],
  });
  await endSessions(deps, userId, { all: true });
  await queueRoleSync(deps.queue, [userId]);
  const detail = { keysRevoked: ending.length, chatMessagesDeleted: erased.length, reviewsDeleted: reviewedPages.length };
  if (by.kind === "member") await audit(db, userId, "account.delete", userId, { ...detail, by: "member" }, by.ip);
  else await audit(db, by.actor.viewer.id, "account.delete", userId, { ...detail, by: "staff", reason: by.reason }, by.actor.ip);
  return ok({ keysRevoked: ending.length, chatMessagesDeleted: erased.length, reviewedPages });
}

function closingMail(input: {
  email: string;
  username: string;
  keys: { key: string; product: string; plan: string }[];
  byStaff: boolean;
  dedupeKey: string;
}) {
  const how = input.byStaff ? "at your request, by our support team" : "from its Security page";
  const keys =
    input.keys.length === 0
      ? "You had no keys that needed stopping."
      : ["These keys no longer work:", ...input.keys.map((key) => `- ${maskKey(key.key)} (${key.product}, ${key.plan})`)].join("\n");
  return {
    to: input.email,
    subject: `Your ${BRAND} account has been deleted`,
    text: [
      `Hello ${input.username},`,
      "",
      `Your ${BRAND} account (${input.email}) was deleted ${how}.`,
      "",
      keys,
      "",
      "Your sign-ins, chat messages and reviews are gone. Your orders are kept for accounting, without your e-mail address or name.",
      "This e-mail is deleted from our systems once it has been sent.",
      "",
      "If you did not ask for this, reply to this message.",
    ].join("\n"),
    dedupeKey: input.dedupeKey,
  };
}
