// The way into the chat room: a WebSocket upgrade from our own pages by a signed-in member. The
// member's id, username and session travel to the room in headers the Worker sets itself; anything
// the browser sent under those names is dropped.
import { MEMBER_ID_HEADER, MEMBER_NAME_HEADER, MEMBER_SESSION_HEADER } from "~/lib/chat";
import { getSession } from "~/server/accounts/session.server";
import { hubRoom } from "~/server/chat/chat-gateway.server";
import type { Db } from "~/server/platform/db/client.server";
import { callerOf } from "./caller.server";

export const CHAT_PATH = "/chat/ws";

export async function connectToChat(request: Request, env: Env, db: Db): Promise<Response> {
  if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
    return new Response("Expected a WebSocket upgrade", { status: 426 });
  }
  const caller = callerOf(request);
  // Browsers always send Origin on a WebSocket handshake; another site's page must not ride on
  // the member's cookie (cross-site WebSocket hijacking).
  if (request.headers.get("Origin") !== caller.origin) {
    return new Response("Cross-site WebSocket refused", { status: 403 });
  }
  const session = await getSession(db, caller);
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
