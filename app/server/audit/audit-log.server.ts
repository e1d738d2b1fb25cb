// The audit log as the back office reads it (decision 038): newest first, filtered by who acted,
// what kind of action and which days, a page of 50 at a time by keyset on (created_at, id), so a
// page never repeats or skips an entry when new ones arrive.
import { and, desc, eq, gte, inArray, isNull, lt, or, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { utcDayStart, type AuditFilters } from "~/lib/schemas/audit";
import { orderPathOf, orderSubject } from "~/lib/audit";
import { maskKey } from "~/lib/licences";
import { fail, ok, type Result } from "~/lib/result";
import { findByEmailOrUsername } from "../accounts/directory.server";
import type { Db } from "../platform/db/client.server";
import { auditLog, profiles, shopifyOrders, users } from "../platform/db/schema.server";
import { DAY_MS } from "~/lib/time";

export const AUDIT_PAGE_SIZE = 50;

export interface AuditEntry {
  id: number;
  createdAt: number;
  actor: { id: string; username: string | null } | null;
  action: string;
  subject: string | null;
  /** The account the subject names, when it is an account's id. */
  subjectAccount: { id: string; username: string } | null;
  /** The order the subject names, by the number its buyer knows, and its back-office page. */
  subjectOrder: { number: string; path: string } | null;
  /** The detail's fields as text, in their recorded order. */
  detail: [string, string][];
  ip: string | null;
}

/** Who the actor filter names: anyone (undefined), the shop itself (null), or one account's id. */
async function actorOf(db: Db, actor: string): Promise<Result<string | null | undefined>> {
  if (actor === "") return ok(undefined);
  if (actor.toLowerCase() === "system") return ok(null);
  const byId = await db.select({ id: users.id }).from(users).where(eq(users.id, actor)).get();
  if (byId) return ok(byId.id);
  const account = await findByEmailOrUsername(db, actor);
  return account ? ok(account.id) : fail("invalid", "No account with that username or e-mail", { field: "actor" });
}

/** An action ("licence.ban") or every action of a group ("licence."), as a range the action index serves. */
function kindFilter(kind: string): SQL | undefined {
  if (kind === "") return undefined;
  if (!kind.endsWith(".")) return eq(auditLog.action, kind);
  // "." + 1 is "/": every action that starts with the group sorts between the two.
  return and(gte(auditLog.action, kind), lt(auditLog.action, `${kind.slice(0, -1)}/`));
}

/** The detail's fields as text, in their recorded order (any JSON object; anything else as itself). */
export function detailFields(detail: string | null): [string, string][] {
  if (!detail) return [];
  try {
    const parsed: unknown = JSON.parse(detail);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return [["detail", detail]];
    return Object.entries(parsed).map(([key, value]) => [key, typeof value === "string" ? value : JSON.stringify(value)]);
  } catch {
    return [["detail", detail]];
  }
}

/**
 * Entries about one key were once written with the whole key as their subject; the log shows
 * those masked, as it shows keys everywhere else (a PC's hardware id is no secret and stays).
 */
const KEY_SUBJECTS = ["licence.ban", "licence.unban", "licence.reset-hwid", "licence.owner-reset"];

function shownSubject(action: string, subject: string | null): string | null {
  return subject && KEY_SUBJECTS.includes(action) && !subject.startsWith("licence:") ? maskKey(subject) : subject;
}

const actorProfile = alias(profiles, "actor_profile");
const subjectProfile = alias(profiles, "subject_profile");

/** One page of the log under the filters, and the cursor of the next (older) page, if any. */
export async function auditLogPage(db: Db, filters: AuditFilters): Promise<Result<{ entries: AuditEntry[]; next: string | null }>> {
  const actor = await actorOf(db, filters.actor);
  if (!actor.ok) return actor;
  const from = filters.from ? utcDayStart(filters.from) : null;
  const to = filters.to ? utcDayStart(filters.to) : null;
  const [cursorAt, cursorId] = filters.cursor ? filters.cursor.split(".").map(Number) : [];
  const rows = await db
    .select({
      id: auditLog.id,
      createdAt: auditLog.createdAt,
      actorId: auditLog.actorUserId,
      actorName: actorProfile.username,
      action: auditLog.action,
      subject: auditLog.subject,
      subjectName: subjectProfile.username,
      detail: auditLog.detail,
      ip: auditLog.ip,
    })
    .from(auditLog)
    .leftJoin(actorProfile, eq(actorProfile.id, auditLog.actorUserId))
    .leftJoin(subjectProfile, eq(subjectProfile.id, auditLog.subject))
    .where(
      and(
        actor.value === undefined ? undefined : actor.value === null ? isNull(auditLog.actorUserId) : eq(auditLog.actorUserId, actor.value),
        kindFilter(filters.kind),
        from === null ? undefined : gte(auditLog.createdAt, from),
        to === null ? undefined : lt(auditLog.createdAt, to + DAY_MS),
        cursorAt === undefined || cursorId === undefined
          ? undefined
          : or(lt(auditLog.createdAt, cursorAt), and(eq(auditLog.createdAt, cursorAt), lt(auditLog.id, cursorId))),
      ),
    )
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(AUDIT_PAGE_SIZE + 1);
  const page = rows.slice(0, AUDIT_PAGE_SIZE);
  const last = page.at(-1);
  const numbers = await orderNumbers(
    db,
    page.map((row) => row.subject),
  );
  return ok({
    entries: page.map((row) => ({
      id: row.id,
      createdAt: row.createdAt,
      actor: row.actorId ? { id: row.actorId, username: row.actorName } : null,
      action: row.action,
      subject: shownSubject(row.action, row.subject),
      subjectAccount: row.subject && row.subjectName ? { id: row.subject, username: row.subjectName } : null,
      subjectOrder: row.subject && numbers.has(row.subject) ? { number: numbers.get(row.subject)!, path: orderPathOf(row.subject)! } : null,
      detail: detailFields(row.detail),
      ip: row.ip,
    })),
    next: rows.length > AUDIT_PAGE_SIZE && last ? `${last.createdAt}.${last.id}` : null,
  });
}

/**
 * The order numbers of the subjects that name orders. Only a card order's number needs reading
 * (its Shopify name); the others' numbers are their references, as order_index spells them.
 */
async function orderNumbers(db: Db, subjects: (string | null)[]): Promise<Map<string, string>> {
  const orders = subjects.flatMap((subject) => (subject ? [orderSubject(subject)].filter((o) => o !== null) : []));
  const shopifyIds = orders.filter((o) => o.source === "shopify").map((o) => o.reference);
  const names =
    shopifyIds.length === 0
      ? []
      : await db
          .select({ id: shopifyOrders.id, name: shopifyOrders.name })
          .from(shopifyOrders)
          .where(inArray(shopifyOrders.id, shopifyIds));
  const shopifyName = new Map(names.map((n) => [n.id, n.name ?? n.id]));
  const number = {
    shopify: (ref: string) => shopifyName.get(ref) ?? ref,
    crypto: (ref: string) => ref,
    reseller: (ref: string) => `R-${ref}`,
    admin: (ref: string) => `M-${ref}`,
  };
  return new Map(orders.map((o) => [`${o.source}:${o.reference}`, number[o.source](o.reference)]));
}

/** Every action the log holds, for the kind filter's choices. */
export async function auditActions(db: Db): Promise<string[]> {
  const rows = await db.selectDistinct({ action: auditLog.action }).from(auditLog).orderBy(auditLog.action);
  return rows.map((r) => r.action);
}
