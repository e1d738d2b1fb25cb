// The hub sidebar's chat rooms: the rooms the signed-in member sees, each with their unread count
// and unread mentions (decision 095). Private and never cached; the sidebar asks again when the
// member comes back to the window and every minute while it is in view.
import { app } from "~/http/context.server";
import { callerOf } from "~/http/caller.server";
import { getViewer } from "~/server/accounts/session.server";
import { chatDeps } from "~/server/chat/chat-gateway.server";
import { chatSidebar } from "~/server/chat/rooms.server";
import type { Route } from "./+types/chat-rooms";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const viewer = await getViewer(db, callerOf(request));
  const headers = { "Cache-Control": "private, no-store" };
  if (!viewer) return Response.json({ message: "Please log in to chat" }, { status: 401, headers });
  return Response.json({ rooms: await chatSidebar(chatDeps(env, db), viewer) }, { headers });
}
