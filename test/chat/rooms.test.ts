// Rooms: general and announcements for every member, a room per product for its live licence
// holders (closed when the licence ends, an open socket included), and rooms staff create and
// archive; the hub's sidebar lists each member's rooms.
import { runDurableObjectAlarm } from "cloudflare:test";
import { and, eq, isNull } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DAY_MS, HOUR_MS } from "~/lib/time";
import { chatRooms } from "~/server/platform/db/schema.server";
import { boughtKey, call, db, deliver, hwid, ORIGIN, unique, validate } from "../helpers";
import { manageRooms, member, newRoom, open, roomStub, sidebarRooms, upgrade } from "./chat-client";

const PRODUCT = "Vertex Rust";
const nonce = () => crypto.randomUUID();

afterEach(() => {
  vi.useRealTimers();
});

/** The product's room, made by staff (or the one another test already made). */
async function productRoom(staffCookie: string): Promise<string> {
  const created = await manageRooms(staffCookie, { intent: "create", name: `${PRODUCT} chat`, kind: "product", product: PRODUCT });
  expect([200, 409]).toContain(created.status);
  const row = await db
    .select({ slug: chatRooms.slug })
    .from(chatRooms)
    .where(and(eq(chatRooms.product, PRODUCT), isNull(chatRooms.archivedAt)))
    .get();
  return row!.slug;
}

/** A member holding a live licence of the product (bought, not yet activated), signed in. */
async function holder() {
  const who = await member();
  const bought = await boughtKey("1 Week", who.email, PRODUCT);
  return { ...who, ...bought };
}

describe("the rooms a member sees", () => {
  it("are general and announcements for everyone; a product's room for its live licence holders and staff", async () => {
    const staff = await member("support");
    const room = await productRoom(staff.cookie);
    const plain = await member();
    const slugs = (await sidebarRooms(plain.cookie)).map((r) => r.slug);
    expect(slugs.slice(0, 2)).toEqual(["general", "announcements"]);
    expect(slugs).not.toContain(room);
    expect((await upgrade({ Origin: ORIGIN, Cookie: plain.cookie }, room)).status).toBe(403);
    expect((await call(`/dashboard/chat/${room}`, { cookie: plain.cookie })).status).toBe(403);

    const owner = await holder();
    expect((await sidebarRooms(owner.cookie)).map((r) => r.slug)).toContain(room);
    const page = await call(`/dashboard/chat/${room}`, { cookie: owner.cookie });
    expect(page.status).toBe(200);
    const socket = await open(owner.cookie, room, "holder");
    expect(await socket.next("history")).toMatchObject({ room: { slug: room, kind: "product", product: PRODUCT } });
    socket.close();

    expect((await sidebarRooms(staff.cookie)).map((r) => r.slug)).toContain(room);
    expect((await call("/dashboard/chat/no-such-room", { cookie: plain.cookie })).status).toBe(404);
    expect((await upgrade({ Origin: ORIGIN, Cookie: plain.cookie }, "no-such-room")).status).toBe(404);
    expect((await call("/api/chat/rooms")).status).toBe(401);
  });
});

describe("a product's room", () => {
  it("closes a holder's open socket once their licence is cancelled, and refuses them after", async () => {
    const staff = await member("admin");
    const room = await productRoom(staff.cookie);
    const owner = await holder();
    const socket = await open(owner.cookie, room, "holder");
    await socket.next("history");

    await deliver("orders/cancelled", { ...owner.order, cancelled_at: new Date().toISOString() });
    // The room checks its members' licences again within a few minutes.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + HOUR_MS);
    expect(await runDurableObjectAlarm(roomStub(room))).toBe(true);
    expect(await socket.next("closed")).toMatchObject({ reason: "access-ended" });
    expect(await socket.closed).toBe(4003);
    vi.useRealTimers();
    expect((await upgrade({ Origin: ORIGIN, Cookie: owner.cookie }, room)).status).toBe(403);
    expect((await sidebarRooms(owner.cookie)).map((r) => r.slug)).not.toContain(room);
  });

  it("closes the socket when a timed licence runs out, and keeps the others", async () => {
    const staff = await member("admin");
    const room = await productRoom(staff.cookie);
    const owner = await holder();
    // Activated on a PC: a week from now it runs out.
    expect((await validate({ key: owner.key, hwid: hwid(), nonce: nonce() })).json).toMatchObject({ code: "VALID" });
    const socket = await open(owner.cookie, room, "weekly holder");
    await socket.next("history");
    const lasting = await holder();
    const other = await open(lasting.cookie, room, "not activated yet");
    await other.next("history");

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 7 * DAY_MS + HOUR_MS);
    expect(await runDurableObjectAlarm(roomStub(room))).toBe(true);
    expect(await socket.next("closed")).toMatchObject({ reason: "access-ended" });
    await other.settled();
    expect(other.frames.some((f) => f.type === "closed")).toBe(false);
    vi.useRealTimers();
    other.close();
  });
});

describe("rooms staff make", () => {
  it("are created and archived by staff only; archiving closes their sockets and takes them off every sidebar", async () => {
    const staff = await member("support");
    const plain = await member();
    expect((await manageRooms(plain.cookie, { intent: "create", name: unique("Room "), kind: "open", product: "" })).status).toBe(403);
    expect((await manageRooms(staff.cookie, { intent: "create", name: "", kind: "open", product: "" })).status).toBe(400);
    expect((await manageRooms(staff.cookie, { intent: "create", name: unique("Room "), kind: "product", product: "" })).status).toBe(400);

    const room = await newRoom(staff.cookie);
    expect((await sidebarRooms(plain.cookie)).map((r) => r.slug)).toContain(room);
    const socket = await open(plain.cookie, room, "member");
    await socket.next("history");

    expect((await manageRooms(plain.cookie, { intent: "archive", room })).status).toBe(403);
    expect((await manageRooms(staff.cookie, { intent: "archive", room })).status).toBe(200);
    expect(await socket.next("closed")).toMatchObject({ reason: "archived" });
    expect(await socket.closed).toBe(4003);
    expect((await sidebarRooms(plain.cookie)).map((r) => r.slug)).not.toContain(room);
    expect((await upgrade({ Origin: ORIGIN, Cookie: plain.cookie }, room)).status).toBe(404);
    expect((await manageRooms(staff.cookie, { intent: "archive", room })).status).toBe(409);

    expect((await manageRooms(plain.cookie, { intent: "restore", room })).status).toBe(403);
    expect((await manageRooms(staff.cookie, { intent: "restore", room })).status).toBe(200);
    expect((await sidebarRooms(plain.cookie)).map((r) => r.slug)).toContain(room);
    // The two rooms every shop has stay.
    expect((await manageRooms(staff.cookie, { intent: "archive", room: "general" })).status).toBe(409);
  });
});
