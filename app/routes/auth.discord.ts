// /auth/discord: off to Discord (only when Discord sign-in is configured). A GET signs in; a POST
// from the Security page links Discord to the member signed in.
import { data, redirect } from "react-router";
import { app } from "~/http/context.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { isDiscordConfigured, startDiscordSignIn } from "~/server/accounts/discord.server";
import { getViewer } from "~/server/accounts/session.server";
import type { Route } from "./+types/auth.discord";

function toDiscord(request: Request, env: Env, link: boolean) {
  if (!isDiscordConfigured(env)) throw data(null, { status: 404 });
  const { url, cookies } = startDiscordSignIn(env, new URL(request.url).origin, { link });
  const headers = new Headers();
  for (const cookie of cookies) headers.append("Set-Cookie", cookie);
  return redirect(url, { headers });
}

export function loader({ request, context }: Route.LoaderArgs) {
  return toDiscord(request, app(context).env, false);
}

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env } = app(context);
  if (!(await getViewer(db, request))) throw redirectWithToast("/auth", { title: "Login Required", description: "Please log in to continue" });
  return toDiscord(request, env, true);
}
