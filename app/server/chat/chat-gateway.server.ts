// The chat room's side of the hub: which room members talk in, the room told when sessions end,
// so it closes their sockets, and asked for a member's own messages (their data, or its deletion). The WebSocket handshake itself is the edge's
// (app/http/chat.server.ts).
import type { Db } from "../platform/db/client.server";
import type { SessionDeps } from "../accounts/session.server";

const HUB_ROOM = "hub";

/** The hub's one chat room. */
export const hubRoom = (env: Pick<Env, "CHAT_ROOM">) => env.CHAT_ROOM.get(env.CHAT_ROOM.idFromName(HUB_ROOM));

/** What ending sessions needs: the database, and the chat room, which closes the sockets they opened. */
export function sessionDepsFor(env: Env, db: Db): SessionDeps {
  return {
    db,
    sessionsEnded: async (publicIds) => {
      await hubRoom(env).endSessions(publicIds);
    },
  };
}

/**
 * A member's messages in the hub's room, oldest first (decision 099): for their data export, or,
 * with `erase`, deleted as their account is (every open page drops them).
 */
export function chatMessagesOf(env: Pick<Env, "CHAT_ROOM">, userId: string, options: { erase?: boolean } = {}) {
  return hubRoom(env).memberMessages(userId, options);
}
