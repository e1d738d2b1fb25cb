// The link in the verification e-mail lands here.
import { verifyEmail } from "~/server/accounts/registration.server";
import { app } from "~/server/platform/context.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import type { Route } from "./+types/auth.verify";

export async function loader({ request, context }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token");
  if (await verifyEmail(app(context).db, token)) {
    return redirectWithToast("/auth", { title: "Email Verified", description: "Your account is ready. You can log in now." });
  }
  return redirectWithToast("/auth", {
    title: "Verification Failed",
    description: "This link is invalid or has expired. Log in to request a new one.",
    variant: "destructive",
  });
}
