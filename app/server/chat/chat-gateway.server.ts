// The way between the Worker and the chat rooms: which Durable Object a room is, the rooms told
// when sessions end, so they close the sockets those sessions opened, and asked for a member's own
// messages (their data, or its deletion). What the Worker tells a room about a socket it hands over
// is room-handover.server's; the WebSocket handshake itself is the edge's (app/http/chat.server.ts).
import type { SessionDeps } from "../accounts/session.server";
import type { Db } from "../platform/db/client.server";
import { activeRoomSlugs, everyRoomSlug } from "./rooms.server";

/** A room's Durable Object. The general room keeps the name the hub's one room always had, and with it its messages. */
export const roomStub = (env: Pick<Env, "CHAT_ROOM">, slug: string) =>
  env.CHAT_ROOM.get(env.CHAT_ROOM.idFromName(slug === "general" ? "hub" : `room:${slug}`));

export type RoomStub = ReturnType<typeof roomStub>;

/** What the chat's domain functions need: D1, and the way to each room. */
export interface ChatDeps {
  db: Db;
  room: (slug: string) => RoomStub;
}

export const chatDeps = (env: Pick<Env, "CHAT_ROOM">, db: Db): ChatDeps => ({ db, room: (slug) => roomStub(env, slug) });

/** A chat-wide change told to every open room at once; a room that cannot be reached is logged, and learns it at the next socket. */
export async function toEveryRoom(deps: ChatDeps, tell: (room: RoomStub) => Promise<unknown>): Promise<void> {
  const slugs = await activeRoomSlugs(deps.db);
  const told = await Promise.allSettled(slugs.map((slug) => tell(deps.room(slug))));
  told.forEach((result, i) => {
    if (result.status === "rejected") console.error(`chat: room ${slugs[i]} could not be told:`, result.reason);
  });
}

/** What ending sessions needs: the database, and the chat rooms, which close the sockets they opened. */
export function sessionDepsFor(env: Env, db: Db): SessionDeps {
  return {
    db,
    sessionsEnded: async (publicIds) => {
      await toEveryRoom(chatDeps(env, db), (room) => room.endSessions(publicIds));
    },
  };
}

/**
 * A member's messages in every room, archived ones too, oldest first (decision 099): for their
 * data export, or, with `erase`, deleted as their account is (every open page drops them).
 */
export async function chatMessagesOf(env: Pick<Env, "CHAT_ROOM">, db: Db, userId: string, options: { erase?: boolean } = {}) {
  const slugs = await everyRoomSlug(db);
  const each = await Promise.all(slugs.map((slug) => roomStub(env, slug).memberMessages(userId, options)));
  return each.flat().sort((a, b) => a.createdAt - b.createdAt);
}
