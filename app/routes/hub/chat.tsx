// /dashboard/chat/:room: one chat room, if the member may be in it (a product's room only while
// they hold a live licence of it; decision 094). Reporting a message posts here.
import { LiveChat } from "./+shared/live-chat";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { refusedBy } from "~/http/refusals.server";
import { readSubmission } from "~/http/submission.server";
import { BRAND } from "~/lib/brand";
import { reportMessageSchema } from "~/lib/schemas/chat";
import { chatDeps } from "~/server/chat/chat-gateway.server";
import { reportMessage } from "~/server/chat/reports.server";
import { roomFor } from "~/server/chat/rooms.server";
import type { Route } from "./+types/chat";

export async function loader({ params, context }: Route.LoaderArgs) {
  const room = await roomFor(app(context).db, currentViewer(context), params.room);
  if (!room.ok) throw refusedBy(room.problem);
  const { slug, name, kind, product } = room.value;
  return { room: { slug, name, kind, product } };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: `${loaderData?.room.name ?? "Chat"} | ${BRAND}` }];

const titles: ProblemTitles = { invalid: "Please check the report", conflict: "Report not sent", "not-found": "Report not sent" };

export async function action({ request, params, context }: Route.ActionArgs) {
  const submission = await readSubmission(request, reportMessageSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const { db, env } = app(context);
  const result = await reportMessage(chatDeps(env, db), currentViewer(context), params.room, submission.value);
  return answer(result, {
    titles,
    intent: "report",
    success: { title: "Report sent", description: "Thank you. Staff will look at it." },
  });
}

export default function ChatRoomPage({ loaderData }: Route.ComponentProps) {
  const { room } = loaderData;
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-black">{room.name}</h1>
      <LiveChat room={room.slug} />
    </div>
  );
}
