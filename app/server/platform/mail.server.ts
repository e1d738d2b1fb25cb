// Outgoing mail. Every message is written to the outbox first, then delivered by the configured
// transport; a failed delivery stays in the outbox and the cron trigger retries it with backoff.
// A delivery is claimed with a conditional update, so the cron job and an in-flight send can
// never deliver the same message twice.
import { and, asc, desc, eq, like, lte, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "./db/client.server";
import { mailOutbox } from "./db/schema.server";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** The same key never produces a second message (e.g. one e-mail per order). */
  dedupeKey?: string;
  /** The order the message is about ("<source>:<reference>"): it shows on that order's timeline. */
  orderKey?: string;
  /** Headers the transport adds (a reminder's List-Unsubscribe and List-Unsubscribe-Post). */
  headers?: Record<string, string>;
}

export type MailConfig = Pick<Env, "MAIL_TRANSPORT" | "MAIL_FROM" | "MAIL_API_URL" | "MAIL_API_KEY">;

/** What a domain function that sends mail needs: the database, the transport, and `waitUntil`. */
export interface MailingDeps {
  db: Db;
  mail: MailConfig;
  waitUntil: (promise: Promise<unknown>) => void;
}

export const MAX_MAIL_ATTEMPTS = 8;
const CLAIM_MS = 5 * 60 * 1000;
const BACKOFF_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000, 4 * 60 * 60_000];

type Outgoing = typeof mailOutbox.$inferSelect;

/** A failure that trying again cannot mend: the address, or the message, is refused for good. */
class Undeliverable extends Error {}

/**
 * Why no transport could ever deliver to `address`, or null when it may be deliverable. Only what
 * is certain: no mailbox, or a domain of the reserved `.invalid` top-level domain (RFC 2606). An
 * unusual but valid address (`o'brien@…`, an internationalised domain) is left to the transport.
 */
export function undeliverableReason(address: string): string | null {
  const at = address.lastIndexOf("@");
  if (at < 1 || at === address.length - 1 || address.length > 254 || /[\s\p{Cc}]/u.test(address)) return "Not an e-mail address";
  if (/\.invalid\.?$/i.test(address.slice(at + 1))) return "The domain does not exist (.invalid)";
  return null;
}

/**
 * The mail API's answer that means the message itself was refused (a recipient the API will not
 * take): retrying sends the same message to the same refusal. Other refusals (a bad key, a sender
 * not set up yet) are the shop's to mend, so they are retried.
 */
const REFUSED_STATUSES = new Set([422]);

/** Sends one message over the configured transport; throws on failure (`Undeliverable` for good). */
async function transmit(config: MailConfig, message: Outgoing, fetcher: typeof fetch): Promise<void> {
  const undeliverable = undeliverableReason(message.toAddress);
  if (undeliverable) throw new Undeliverable(`${undeliverable}: ${message.toAddress || "(none)"}`);
  if (config.MAIL_TRANSPORT === "none") return; // the outbox itself is the mailbox (see /dev/mail)
  if (config.MAIL_TRANSPORT !== "http") throw new Error(`Unknown MAIL_TRANSPORT "${config.MAIL_TRANSPORT}"`);
  if (!config.MAIL_API_URL || !config.MAIL_API_KEY) throw new Error("MAIL_API_URL and MAIL_API_KEY must be set");
  const response = await fetcher(config.MAIL_API_URL, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${config.MAIL_API_KEY}` },
    body: JSON.stringify({
      from: config.MAIL_FROM,
      to: [message.toAddress],
      subject: message.subject,
      text: message.textBody,
      html: message.htmlBody ?? undefined,
      headers: message.headers ?? undefined,
    }),
  });
  if (!response.ok) {
    const problem = `Mail API answered ${response.status}: ${(await response.text()).slice(0, 200)}`;
    throw REFUSED_STATUSES.has(response.status) ? new Undeliverable(problem) : new Error(problem);
  }
}

/** The statement that writes `message` to the outbox (nothing when its dedupe key was seen before). */
const outboxInsert = (db: Db, message: MailMessage, now: number) =>
  db
    .insert(mailOutbox)
    .values({
      toAddress: message.to,
      subject: message.subject,
      textBody: message.text,
      htmlBody: message.html ?? null,
      dedupeKey: message.dedupeKey ?? null,
      orderKey: message.orderKey ?? null,
      headers: message.headers ?? null,
      createdAt: now,
      nextAttemptAt: now,
    })
    .onConflictDoNothing({ target: mailOutbox.dedupeKey })
    .returning({ id: mailOutbox.id });

/** Writes the message to the outbox. Returns its id, or null when its dedupe key was seen before. */
export async function enqueueMail(db: Db, message: MailMessage, now = Date.now()): Promise<number | null> {
  const [row] = await outboxInsert(db, message, now);
  return row?.id ?? null;
}

/** Attempts delivery of one queued message if it is due and nobody else holds it. */
export async function deliverMail(
  db: Db,
  config: MailConfig,
  id: number,
  { now = Date.now(), fetcher = fetch }: { now?: number; fetcher?: typeof fetch } = {},
): Promise<"sent" | "retry" | "failed" | "skipped"> {
  const claimed = await db
    .update(mailOutbox)
    .set({ nextAttemptAt: now + CLAIM_MS, attempts: sql`${mailOutbox.attempts} + 1` })
    .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, "pending"), lte(mailOutbox.nextAttemptAt, now)))
    .returning()
    .get();
  if (!claimed) return "skipped";
  try {
    await transmit(config, claimed, fetcher);
    await db.update(mailOutbox).set({ status: "sent", sentAt: Date.now(), lastError: null }).where(eq(mailOutbox.id, id));
    return "sent";
  } catch (error) {
    const lastError = error instanceof Error ? error.message : String(error);
    const giveUp = claimed.attempts >= MAX_MAIL_ATTEMPTS || error instanceof Undeliverable;
    const backoff = BACKOFF_MS[Math.min(claimed.attempts, BACKOFF_MS.length) - 1] ?? BACKOFF_MS[0]!;
    await db
      .update(mailOutbox)
      .set({ status: giveUp ? "failed" : "pending", lastError, nextAttemptAt: now + backoff })
      .where(eq(mailOutbox.id, id));
    return giveUp ? "failed" : "retry";
  }
}

/**
 * The one way to send mail: the message is written to the outbox and its delivery started without
 * holding up the response (the caller's `waitUntil` lets it finish after the answer has gone out).
 * `alongside` are statements that must happen exactly when the message is written (marking what it
 * tells the reader as told): one D1 transaction, so a crash leaves both or neither. A message sent
 * `later` waits for the cron's delivery. False when its dedupe key was seen before.
 */
export async function sendMail(
  deps: MailingDeps,
  message: MailMessage,
  { alongside = [], later = false, now = Date.now() }: { alongside?: BatchItem<"sqlite">[]; later?: boolean; now?: number } = {},
): Promise<boolean> {
  const [[row]] = await deps.db.batch([outboxInsert(deps.db, message, now), ...alongside]);
  if (!row) return false;
  if (!later) deps.waitUntil(deliverMail(deps.db, deps.mail, row.id));
  return true;
}

/** Cron: retry every due message. */
export async function retryDueMail(db: Db, config: MailConfig, now = Date.now(), fetcher: typeof fetch = fetch) {
  const due = await db
    .select({ id: mailOutbox.id })
    .from(mailOutbox)
    .where(and(eq(mailOutbox.status, "pending"), lte(mailOutbox.nextAttemptAt, now)))
    .orderBy(asc(mailOutbox.nextAttemptAt))
    .limit(50);
  const outcomes = [];
  for (const { id } of due) outcomes.push(await deliverMail(db, config, id, { now, fetcher }));
  return outcomes;
}

/** The outbox, newest first: the local mailbox page in development. */
export function mailbox(db: Db, limit = 100) {
  return db
    .select({
      id: mailOutbox.id,
      to: mailOutbox.toAddress,
      subject: mailOutbox.subject,
      body: mailOutbox.textBody,
      status: mailOutbox.status,
      createdAt: mailOutbox.createdAt,
    })
    .from(mailOutbox)
    .orderBy(desc(mailOutbox.id))
    .limit(limit);
}

/**
 * The mail sent to a deleted account's address, for the deletion's batch (decision 099): every
 * message goes but the one with `keep` as its dedupe key (the account's last e-mail, which is
 * written in the same batch and deleted by `forgetSentClosingMail` once it is delivered).
 */
export const mailOfDeletedAccount = (db: Db, email: string, keep: string) =>
  db.delete(mailOutbox).where(and(sql`lower(${mailOutbox.toAddress}) = lower(${email})`, sql`${mailOutbox.dedupeKey} is not ${keep}`));

/** Dedupe keys of an account's last e-mail start with this: it is kept only until it is delivered. */
export const CLOSING_MAIL_PREFIX = "account-deleted:";

/** Deletes deleted accounts' last e-mails once delivered (or given up on): the address leaves the outbox too. */
export async function forgetSentClosingMail(db: Db): Promise<void> {
  await db.delete(mailOutbox).where(and(like(mailOutbox.dedupeKey, `${CLOSING_MAIL_PREFIX}%`), sql`${mailOutbox.status} <> 'pending'`));
}
