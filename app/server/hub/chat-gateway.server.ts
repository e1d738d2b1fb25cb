// The way into the chat room: a WebSocket upgrade from our own pages by a signed-in member. The
// member's id, username and session travel to the room in headers the Worker sets itself; anything
// the browser sent under those names is dropped. When sessions end, the room closes their sockets.
import { MEMBER_ID_HEADER, MEMBER_NAME_HEADER, MEMBER_SESSION_HEADER } from "~/lib/chat";
import type { Db } from "../platform/db/client.server";
import { getSession, type SessionDeps } from "../accounts/session.server";

export const CHAT_PATH = "/chat/ws";
const HUB_ROOM = "hub";

const hubRoom = (env: Env) => env.CHAT_ROOM.get(env.CHAT_ROOM.idFromName(HUB_ROOM));

/** What ending sessions needs: the database, and the chat room, which closes the sockets they opened. */
export function sessionDepsFor(env: Env, db: Db): SessionDeps {
  return {
    db,
    sessionsEnded: async (publicIds) => {
      await hubRoom(env).endSessions(publicIds);
    },
  };
}

export async function connectToChat(request: Request, env: Env, db: Db): Promise<Response> {
  if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
    return new Response("Expected a WebSocket upgrade", { status: 426 });
  }
  // Browsers always send Origin on a WebSocket handshake; another site's page must not ride on
  // the member's cookie (cross-site WebSocket hijacking).
  if (request.headers.get("Origin") !== new URL(request.url).origin) {
    return new Response("Cross-site WebSocket refused", { status: 403 });
  }
  const session = await getSession(db, request);
  if (!session) return new Response("Please log in to chat", { status: 401 });
  const { viewer, publicId } = session;
  return hubRoom(env).fetch(
    new Request(request.url, {
      headers: {
        Upgrade: "websocket",
        [MEMBER_ID_HEADER]: viewer.id,
        [MEMBER_NAME_HEADER]: viewer.username,
        [MEMBER_SESSION_HEADER]: publicId,
      },
    }),
  );
}
