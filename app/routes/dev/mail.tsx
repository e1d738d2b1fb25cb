// /dev/mail: the local mailbox. Lists the outbox newest first so verification links and
// order e-mails can be opened without a mail server. Registered only in development builds.
import { LocalTime } from "~/components/local-time";
import { Card } from "~/components/ui/card";
import { app } from "~/http/context.server";
import { notFound } from "~/http/refusals.server";
import { mailbox } from "~/server/platform/mail.server";
import type { Route } from "./+types/mail";

export const meta: Route.MetaFunction = () => [{ title: "Dev mailbox" }, { name: "robots", content: "noindex" }];

export async function loader({ context }: Route.LoaderArgs) {
  if (!import.meta.env.DEV) throw notFound();
  const messages = await mailbox(app(context).db);
  return { messages };
}

/** Plain text with its links made clickable; everything else stays text. */
function Linkified({ text }: { text: string }) {
  return text.split(/(https?:\/\/[^\s]+)/g).map((part, i) =>
    /^https?:\/\//.test(part) ? (
      <a key={i} href={part} className="break-all text-accent underline">
        {part}
      </a>
    ) : (
      <span key={i}>{part}</span>
    ),
  );
}

export default function DevMail({ loaderData }: Route.ComponentProps) {
  return (
    <div className="mx-auto max-w-4xl space-y-4 px-4 py-10">
      <h1 className="text-2xl font-bold">Dev mailbox</h1>
      <p className="text-sm text-muted">Messages in the outbox, newest first. This page exists only in development.</p>
      {loaderData.messages.length === 0 ? <p className="text-muted">No messages yet.</p> : null}
      {loaderData.messages.map((m) => (
        <Card key={m.id} className="space-y-2" data-testid="mail">
          <p className="text-sm text-muted">
            To <span className="text-zinc-100">{m.to}</span> · <LocalTime ms={m.createdAt} format="datetime" /> · {m.status}
          </p>
          <h2 className="font-semibold">{m.subject}</h2>
          <p className="text-sm whitespace-pre-wrap">
            <Linkified text={m.body} />
          </p>
        </Card>
      ))}
    </div>
  );
}
