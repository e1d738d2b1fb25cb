// GET /auth/discord: off to Discord (only when Discord sign-in is configured).
import { data, redirect } from "react-router";
import { app } from "~/http/context.server";
import { isDiscordConfigured, startDiscordSignIn } from "~/server/accounts/discord.server";
import type { Route } from "./+types/auth.discord";

export function loader({ request, context }: Route.LoaderArgs) {
  const { env } = app(context);
  if (!isDiscordConfigured(env)) throw data(null, { status: 404 });
  const { url, cookies } = startDiscordSignIn(env, new URL(request.url).origin);
  const headers = new Headers();
  for (const cookie of cookies) headers.append("Set-Cookie", cookie);
  return redirect(url, { headers });
}
