// Who is signed in, plus any toast waiting from a redirect for the asking page (`?page=<path>`).
// Private and never cached, so the public pages around it can be cached for everyone.
import { app } from "~/http/context.server";
import { getViewer } from "~/server/accounts/session.server";
import { readToast } from "~/http/flash-toast.server";
import type { Route } from "./+types/viewer";
import { callerOf } from "~/http/caller.server";

export async function loader({ request, context }: Route.LoaderArgs) {
  const viewer = await getViewer(app(context).db, callerOf(request));
  const { toast, clear } = readToast(request, new URL(request.url).searchParams.get("page"));
  const headers = new Headers({ "Cache-Control": "private, no-store" });
  if (clear) headers.append("Set-Cookie", clear);
  return Response.json({ viewer, toast }, { headers });
}
