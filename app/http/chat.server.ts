// The way into a chat room: a WebSocket upgrade from our own pages by a signed-in member who may be
// in the room (`?room=<slug>`, the general room by default). Who the member is, their role and
// chat standing, and the room's rules travel to the room in headers the Worker sets itself;
// anything the browser sent under those names is dropped. The room itself refuses a banned member.
import { roomStub } from "~/server/chat/chat-gateway.server";
import { encodeHeader, MEMBER_HEADER, ROOM_HEADER } from "~/server/chat/room-handover.server";
import { admit } from "~/server/chat/rooms.server";
import { getSession } from "~/server/accounts/session.server";
import type { Db } from "~/server/platform/db/client.server";
import { callerOf } from "./caller.server";
import { problemStatus } from "./problem-status.server";

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
  const slug = new URL(request.url).searchParams.get("room") || "general";
  const admitted = await admit(db, session.viewer, session.publicId, slug);
  if (!admitted.ok) return new Response(admitted.problem.message, { status: problemStatus(admitted.problem) });
  const { config, member } = admitted.value;
  return roomStub(env, config.slug).fetch(
    new Request(request.url, {
      headers: { Upgrade: "websocket", [ROOM_HEADER]: encodeHeader(config), [MEMBER_HEADER]: encodeHeader(member) },
    }),
  );
}
