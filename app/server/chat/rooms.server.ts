// The chat's rooms (decision 094): which rooms a member sees (general, announcements, and a
// product's room while they hold a live licence of it, by the one rule of a live licence), who is
// let into one and as whom, the hub's sidebar with each room's unread count (decision 095), and
// staff creating, changing, archiving and restoring rooms.
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { SidebarRoom, StaffRoom } from "~/lib/chat";
import { fail, ok, type Result } from "~/lib/result";
import { can } from "~/lib/roles";
import type { ChatRoomForm } from "~/lib/schemas/chat";
import type { Viewer } from "~/lib/viewer";
import type { Catalogue } from "../catalogue/catalogue.server";
import { plansByProduct } from "../catalogue/catalogue.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { chatRooms } from "../platform/db/schema.server";
import { liveHoldersOf, liveProductsOf } from "../releases/download-access.server";
import type { ChatDeps } from "./chat-gateway.server";
import type { RoomConfig, SocketMember } from "./room-handover.server";
import { sanctionsOf } from "./sanctions.server";

type RoomRow = typeof chatRooms.$inferSelect;

/** The rooms every shop has: never archived. */
const FIXED_ROOMS = ["general", "announcements"];

export const configOf = (row: RoomRow): RoomConfig => ({
  slug: row.slug,
  name: row.name,
  kind: row.kind,
  product: row.product,
  slowModeSeconds: row.slowModeSeconds,
  linkRule: row.linkRule,
  blockedWords: row.blockedWords,
  retentionDays: row.retentionDays,
});

/** Rooms open now: the fixed two first, then the rest by name. */
async function openRooms(db: Db): Promise<RoomRow[]> {
  const rows = await db.select().from(chatRooms).where(isNull(chatRooms.archivedAt)).orderBy(asc(chatRooms.name));
  return [
    ...FIXED_ROOMS.flatMap((slug) => rows.filter((row) => row.slug === slug)),
    ...rows.filter((row) => !FIXED_ROOMS.includes(row.slug)),
  ];
}

export async function activeRoomSlugs(db: Db): Promise<string[]> {
  const rows = await db.select({ slug: chatRooms.slug }).from(chatRooms).where(isNull(chatRooms.archivedAt));
  return rows.map((row) => row.slug);
}

/** Every room's slug, archived ones too: a member's messages may be in any of them. */
export async function everyRoomSlug(db: Db): Promise<string[]> {
  const rows = await db.select({ slug: chatRooms.slug }).from(chatRooms);
  return rows.map((row) => row.slug);
}

const openRoom = (db: Db, slug: string) =>
  db
    .select()
    .from(chatRooms)
    .where(and(eq(chatRooms.slug, slug), isNull(chatRooms.archivedAt)))
    .get();

/** Staff see every room; a member every room but the products' whose licence they do not hold live. */
async function visibleTo(db: Db, viewer: Viewer, rows: RoomRow[], now: number): Promise<RoomRow[]> {
  if (can(viewer.role, "chat.moderate") || !rows.some((row) => row.kind === "product")) return rows;
  const held = await liveProductsOf(db, viewer.email, now);
  return rows.filter((row) => row.kind !== "product" || held.has(row.product!));
}

export interface RoomSummary {
  slug: string;
  name: string;
  kind: RoomRow["kind"];
  product: string | null;
}

const summaryOf = ({ slug, name, kind, product }: RoomRow): RoomSummary => ({ slug, name, kind, product });

/** Whether `viewer` may be in the open room `row`: staff anywhere, members in a product's room only with a live licence of it (until when it runs by itself). */
async function accessTo(db: Db, viewer: Viewer, row: RoomRow, now: number): Promise<Result<{ accessUntil?: number | null }>> {
  if (row.kind !== "product" || can(viewer.role, "chat.moderate")) return ok({});
  const holders = await liveHoldersOf(db, [viewer.email], row.product!, now);
  const email = viewer.email.toLowerCase();
  if (!holders.has(email)) return fail("forbidden", `This room is for members holding a live ${row.product} licence`);
  return ok({ accessUntil: holders.get(email)! });
}

/** The room at `slug` if `viewer` may be in it: not found when there is none (or it is archived), forbidden for a product's room without its licence. */
export async function roomFor(db: Db, viewer: Viewer, slug: string, now = Date.now()): Promise<Result<RoomSummary>> {
  const row = await openRoom(db, slug);
  if (!row) return fail("not-found", "There is no such chat room");
  const access = await accessTo(db, viewer, row, now);
  return access.ok ? ok(summaryOf(row)) : access;
}

/**
 * Who a socket into `slug` belongs to, and the room's rules, for the Worker to hand the room: the
 * member's role and chat sanctions as D1 holds them now. The room itself refuses a banned member.
 */
export async function admit(
  db: Db,
  viewer: Viewer,
  session: string,
  slug: string,
  now = Date.now(),
): Promise<Result<{ config: RoomConfig; member: SocketMember }>> {
  const row = await openRoom(db, slug);
  if (!row) return fail("not-found", "There is no such chat room");
  const [access, sanctions] = await Promise.all([accessTo(db, viewer, row, now), sanctionsOf(db, viewer.id, now)]);
  if (!access.ok) return access;
  return ok({
    config: configOf(row),
    member: {
      userId: viewer.id,
      username: viewer.username,
      email: viewer.email,
      session,
      moderator: can(viewer.role, "chat.moderate"),
      ...sanctions,
      ...access.value,
    },
  });
}

/** For a product's room: which of `emails` still hold a live licence of it, and until when it runs by itself. */
export const productHolders = (db: Db, product: string, emails: string[], now: number) => liveHoldersOf(db, emails, product, now);

/** The hub's sidebar: the rooms `viewer` sees, each with what they have not read and how much of it mentions them. */
export async function chatSidebar(deps: ChatDeps, viewer: Viewer, now = Date.now()): Promise<SidebarRoom[]> {
  const rooms = await visibleTo(deps.db, viewer, await openRooms(deps.db), now);
  return Promise.all(
    rooms.map(async (row) => {
      const counts = await deps
        .room(row.slug)
        .unreadFor(viewer.id)
        .catch((error: unknown) => {
          console.error(`chat: unread counts of ${row.slug}:`, error);
          return { unread: 0, mentions: 0 };
        });
      return { slug: row.slug, name: row.name, kind: row.kind, ...counts };
    }),
  );
}

/** Every room for the moderation page: open ones first, archived after. */
export async function roomsForStaff(db: Db): Promise<StaffRoom[]> {
  const rows = await db
    .select()
    .from(chatRooms)
    .orderBy(sql`${chatRooms.archivedAt} is not null`, asc(chatRooms.name));
  return rows.map((row) => ({
    ...summaryOf(row),
    rules: {
      slowModeSeconds: row.slowModeSeconds,
      linkRule: row.linkRule,
      blockedWords: row.blockedWords,
      retentionDays: row.retentionDays,
    },
    archivedAt: row.archivedAt,
  }));
}

/** A room's address from its name: lower case, words joined by dashes. */
function slugOf(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40)
      .replace(/-+$/, "") || "room"
  );
}

/** Staff: a room's creation, rules, archiving or restoring; audited. A change reaches the room's open sockets at once. */
export async function manageRoom(
  deps: ChatDeps & { catalogue: Catalogue },
  staff: Viewer,
  form: ChatRoomForm,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ slug: string; name: string }>> {
  const { db } = deps;
  if (form.intent === "create") {
    if (form.kind === "product") {
      if (form.product === "") return fail("invalid", "Choose the product whose licence holders the room is for", { field: "product" });
      const products = await plansByProduct(deps.catalogue).catch(() => null);
      if (products && !products.has(form.product)) return fail("invalid", "That product is not in the catalogue", { field: "product" });
    } else if (form.product !== "") {
      return fail("invalid", "Only a product's room names a product", { field: "product" });
    }
    const base = slugOf(form.name);
    const taken = new Set((await db.select({ slug: chatRooms.slug }).from(chatRooms)).map((row) => row.slug));
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    const [created] = await db
      .insert(chatRooms)
      .values({
        slug,
        name: form.name,
        kind: form.kind,
        product: form.kind === "product" ? form.product : null,
        createdAt: now,
        createdBy: staff.id,
      })
      .onConflictDoNothing()
      .returning();
    if (!created)
      return fail("conflict", form.kind === "product" ? `${form.product} already has a room` : "That room name was just taken; try again");
    await deps.room(slug).configure(configOf(created));
    await audit(db, staff.id, "chat.room-create", `chat-room:${slug}`, { name: form.name, kind: form.kind, product: created.product }, ip);
    return ok({ slug, name: form.name });
  }

  const room = await db.select().from(chatRooms).where(eq(chatRooms.slug, form.room)).get();
  if (!room) return fail("not-found", "There is no such chat room");
  if (form.intent === "settings") {
    const [saved] = await db
      .update(chatRooms)
      .set({
        slowModeSeconds: form.slowModeSeconds,
        linkRule: form.linkRule,
        blockedWords: form.blockedWords,
        retentionDays: form.retentionDays,
      })
      .where(eq(chatRooms.slug, room.slug))
      .returning();
    await deps.room(room.slug).configure(configOf(saved!));
    await audit(
      db,
      staff.id,
      "chat.room-settings",
      `chat-room:${room.slug}`,
      {
        slowModeSeconds: form.slowModeSeconds,
        linkRule: form.linkRule,
        blockedWords: form.blockedWords.length,
        retentionDays: form.retentionDays,
      },
      ip,
    );
    return ok({ slug: room.slug, name: room.name });
  }
  if (FIXED_ROOMS.includes(room.slug)) return fail("conflict", `${room.name} is every shop's room: it cannot be archived`);
  if (form.intent === "archive") {
    const [archived] = await db
      .update(chatRooms)
      .set({ archivedAt: now, archivedBy: staff.id })
      .where(and(eq(chatRooms.slug, room.slug), isNull(chatRooms.archivedAt)))
      .returning({ slug: chatRooms.slug });
    if (!archived) return fail("conflict", `${room.name} is archived already`);
    await deps.room(room.slug).archive();
    await audit(db, staff.id, "chat.room-archive", `chat-room:${room.slug}`, { name: room.name }, ip);
    return ok({ slug: room.slug, name: room.name });
  }
  if (room.archivedAt === null) return fail("conflict", `${room.name} is open already`);
  const restored = await db
    .update(chatRooms)
    .set({ archivedAt: null, archivedBy: null })
    .where(eq(chatRooms.slug, room.slug))
    .returning({ slug: chatRooms.slug })
    .catch(() => []);
  // A product has one open room: restoring a second is refused by the database's unique index.
  if (restored.length === 0) return fail("conflict", `${room.product} has another open room already`);
  await audit(db, staff.id, "chat.room-restore", `chat-room:${room.slug}`, { name: room.name }, ip);
  return ok({ slug: room.slug, name: room.name });
}
