// A member's chat socket as the tests drive it: opened through the Worker with a real session,
// every frame checked with the browser's own parser, waited for by type.
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { parseServerFrame, type ServerFrame } from "~/lib/chat";
import type { Role } from "~/lib/roles";
import { chatRooms } from "~/server/platform/db/schema.server";
import { call, createAccount, db, ORIGIN, signIn, type TestAccount, unique } from "../helpers";

/** The room's Durable Object: the general room keeps the name the hub's one room always had. */
export const roomStub = (slug = "general") => env.CHAT_ROOM.get(env.CHAT_ROOM.idFromName(slug === "general" ? "hub" : `room:${slug}`));

export function upgrade(headers: Record<string, string>, room?: string) {
  const query = room ? `?room=${encodeURIComponent(room)}` : "";
  return exports.default.fetch(new Request(`${ORIGIN}/chat/ws${query}`, { headers: { Upgrade: "websocket", ...headers } }));
}

type FrameOf<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

export interface Client {
  ws: WebSocket;
  frames: ServerFrame[];
  /** The next frame of `type` (that `match` accepts) not yet taken. */
  next<T extends ServerFrame["type"]>(type: T, match?: (frame: FrameOf<T>) => boolean): Promise<FrameOf<T>>;
  /** The next frame not yet taken that `match` accepts, whatever its type. */
  first(match: (frame: ServerFrame) => boolean): Promise<ServerFrame>;
  send(frame: unknown): void;
  /** The close code, once the socket is closed. */
  closed: Promise<number>;
  /**
   * Every frame the room sent before now has arrived: a request is answered on the same socket
   * after them. What a test expects not to see is then checked among `frames`.
   */
  settled(): Promise<void>;
  close(): void;
}

/** A socket into `room` with `cookie`; fails unless the upgrade is accepted. */
export async function open(cookie: string, room?: string, name = "member"): Promise<Client> {
  const response = await upgrade({ Origin: ORIGIN, Cookie: cookie }, room);
  expect(response.status, `${name} joining ${room ?? "general"}`).toBe(101);
  const ws = response.webSocket!;
  const frames: ServerFrame[] = [];
  // Every frame the room sends must pass the browser's own check; one that does not fails the wait.
  const outsideProtocol: unknown[] = [];
  const taken = new Set<number>();
  const listeners = new Set<() => void>();
  ws.addEventListener("message", (event) => {
    const frame = parseServerFrame(event.data);
    if (frame) frames.push(frame);
    else outsideProtocol.push(event.data);
    listeners.forEach((l) => l());
  });
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (event) => resolve(event.code)));
  ws.accept();
  let probes = 0;
  const client: Client = {
    ws,
    frames,
    next(type, match = () => true) {
      return client.first((frame) => frame.type === type && match(frame as never)) as never;
    },
    first(match) {
      return new Promise((resolve, reject) => {
        const timeout = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`${name}: no such frame; had ${JSON.stringify(frames.map((f) => f.type))}`));
        }, 5000);
        function check() {
          if (outsideProtocol.length > 0) {
            clearTimeout(timeout);
            listeners.delete(check);
            reject(new Error(`${name}: frame outside the protocol: ${String(outsideProtocol[0])}`));
            return;
          }
          for (let i = 0; i < frames.length; i++) {
            const frame = frames[i]!;
            if (taken.has(i) || !match(frame)) continue;
            taken.add(i);
            clearTimeout(timeout);
            listeners.delete(check);
            resolve(frame as never);
            return;
          }
        }
        listeners.add(check);
        check();
      });
    },
    send: (frame) => ws.send(JSON.stringify(frame)),
    closed,
    async settled() {
      // An older page before a message id no room reaches: answered, in order, after all that went before.
      const before = -1000 - ++probes;
      client.send({ type: "older", before });
      await client.next("older", (frame) => frame.before === before);
    },
    close: () => {
      try {
        ws.close(1000, "done");
      } catch {
        // Closed by the room already.
      }
    },
  };
  return client;
}

export interface Member extends TestAccount {
  cookie: string;
}

/** A fresh signed-in account: a member, or staff with `role`. */
export async function member(role?: Role): Promise<Member> {
  const account = await createAccount(role ? { role } : {});
  return { ...account, cookie: await signIn(account, unique("ip")) };
}

/** A fresh member (or staff) in `room`, their socket open and the room's history received. */
export async function join(options: { room?: string; role?: Role; name?: string } = {}): Promise<Client & Member> {
  const who = await member(options.role);
  const client = await open(who.cookie, options.room, options.name);
  await client.next("history");
  return { ...client, ...who };
}

/** A staff action on the moderation page (delete, mute, ban, pin, reports). */
export const moderate = (cookie: string, form: Record<string, string>) => call("/dashboard/chat-moderation", { form, cookie });

/** A staff action on the rooms (create, settings, archive, restore). */
export const manageRooms = (cookie: string, form: Record<string, string>) => call("/dashboard/chat-moderation/rooms", { form, cookie });

/** A room made by staff for the test, with its settings; its slug. */
export async function newRoom(staffCookie: string, settings: Record<string, string> = {}): Promise<string> {
  const name = unique("Room ");
  const created = await manageRooms(staffCookie, { intent: "create", name, kind: "open", product: "", ...settings });
  expect(created.status).toBe(200);
  const row = await db.select({ slug: chatRooms.slug }).from(chatRooms).where(eq(chatRooms.name, name)).get();
  expect(row, `the room ${name}`).toBeDefined();
  const slug = row!.slug;
  if (Object.keys(settings).some((key) => !["kind", "product"].includes(key))) {
    const saved = await manageRooms(staffCookie, { intent: "settings", room: slug, ...roomSettings(settings) });
    expect(saved.status).toBe(200);
  }
  return slug;
}

/** A room's settings form with `changes` over the defaults. */
export function roomSettings(changes: Record<string, string> = {}): Record<string, string> {
  return { slowModeSeconds: "0", linkRule: "allowed", blockedWords: "", retentionDays: "90", ...changes };
}

/** The rooms a member's sidebar lists, with their unread counts. */
export async function sidebarRooms(cookie: string) {
  const response = await call("/api/chat/rooms", { cookie });
  expect(response.status).toBe(200);
  return ((await response.json()) as { rooms: { slug: string; name: string; kind: string; unread: number; mentions: number }[] }).rooms;
}
