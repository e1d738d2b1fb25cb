// The link in the verification e-mail lands here.
import { verifyEmail } from "~/server/accounts/registration.server";
import { claimSubscriptions } from "~/server/fulfilment/subscriptions.server";
import { app } from "~/http/context.server";
import { problemToast } from "~/http/answer.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import type { Route } from "./+types/auth.verify";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db } = app(context);
  const verified = await verifyEmail(db, new URL(request.url).searchParams.get("token"));
  if (!verified.ok) return redirectWithToast("/auth", problemToast(verified.problem, { "not-found": "Verification Failed" }));
  // Keys bought with this address before the account was verified now show as subscriptions.
  await claimSubscriptions(db, verified.value.id, verified.value.email);
  return redirectWithToast("/auth", { title: "Email Verified", description: "Your account is ready. You can log in now." });
}
