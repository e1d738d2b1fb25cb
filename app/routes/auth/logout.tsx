// Sign out: end the session (its chat sockets close with it), clear the cookie, and say so on the
// home page.
import { redirect } from "react-router";
import { sessionDeps } from "~/http/context.server";
import { destroySession } from "~/server/accounts/session.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import type { Route } from "./+types/logout";
import { callerOf, tokenCookie } from "~/http/caller.server";

export async function action({ request, context }: Route.ActionArgs) {
  const clear = await destroySession(sessionDeps(context), callerOf(request));
  return redirectWithToast(
    "/",
    { title: "Logged out", description: "Successfully signed out" },
    { headers: { "Set-Cookie": tokenCookie(clear) } },
  );
}

export function loader() {
  return redirect("/");
}
