// /reminders/unsubscribe?user=…&signature=…: the renewal reminders' unsubscribe link (decision 091),
// for a member who follows it from the e-mail, signed in or not. The button posts to the same link,
// which the Worker answers before its CSRF check (mail clients' one-click POST carries no Origin).
import { Link } from "~/components/link";
import { BellOff } from "~/components/icons";
import { Button } from "~/components/ui/button";
import { app } from "~/http/context.server";
import { BRAND } from "~/lib/brand";
import { licenceSigner } from "~/server/licences/signing.server";
import { genuineUnsubscribeLink } from "~/server/renewals/reminders.server";
import { AuthPage } from "./+shared/auth-page";
import type { Route } from "./+types/reminders-unsubscribe";

export const meta: Route.MetaFunction = () => [{ title: `Renewal reminders | ${BRAND}` }, { name: "robots", content: "noindex" }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const signer = await licenceSigner(app(context).env.LICENCE_SIGNING_KEY);
  const genuine =
    signer.ok && (await genuineUnsubscribeLink(signer.value, url.searchParams.get("user"), url.searchParams.get("signature")));
  return { genuine, done: url.searchParams.get("done") === "1" };
}

export default function RemindersUnsubscribe({ loaderData }: Route.ComponentProps) {
  const { genuine, done } = loaderData;
  return (
    <AuthPage icon={BellOff}>
      <h1 className="mt-3 text-2xl font-bold">Renewal reminders</h1>
      {!genuine ? (
        <p role="alert" className="mt-2 text-sm text-red-400">
          This unsubscribe link is not valid. You can turn the reminders off on your dashboard's Security page.
        </p>
      ) : done ? (
        <p role="status" className="mt-2 text-sm">
          Renewal reminders are off. You can turn them on again on your dashboard's{" "}
          <Link to="/dashboard/security" className="text-accent hover:underline">
            Security page
          </Link>
          .
        </p>
      ) : (
        <>
          <p className="mt-2 text-sm text-muted">
            Stop the e-mails that remind you before a licence ends? Your licences keep working; nothing else changes.
          </p>
          {/* A plain form: the Worker answers this POST itself, before the app. */}
          <form method="post" className="mt-6">
            <Button type="submit" className="w-full">
              Stop renewal reminders
            </Button>
          </form>
        </>
      )}
    </AuthPage>
  );
}
