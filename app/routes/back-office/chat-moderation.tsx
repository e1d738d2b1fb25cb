// /dashboard/chat-moderation: support and admins (chat.moderate). The reports queue, each reported
// message with what came around it and one-click actions; the mutes and bans in force; the rooms
// and their rules. The hub's chat sends its moderators' actions here too. Every action is audited
// (decision 094).
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { clientAddress } from "~/http/caller.server";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { counted } from "~/lib/format";
import { type ChatModeration, chatModerationSchema } from "~/lib/schemas/chat";
import type { Toast } from "~/lib/toast";
import { plansByProduct } from "~/server/catalogue/catalogue.server";
import { chatDeps } from "~/server/chat/chat-gateway.server";
import { type Moderated, moderate } from "~/server/chat/moderation.server";
import { reportQueue } from "~/server/chat/reports.server";
import { roomsForStaff } from "~/server/chat/rooms.server";
import { sanctionsInForce } from "~/server/chat/sanctions.server";
import { ReportQueue } from "./+shared/chat-moderation/report-queue";
import { RoomsCard } from "./+shared/chat-moderation/rooms-card";
import { SanctionsCard } from "./+shared/chat-moderation/sanctions-card";
import type { Route } from "./+types/chat-moderation";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("chat.moderate")];

export const meta: Route.MetaFunction = () => [{ title: `Chat Moderation | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  const { db, catalogue } = app(context);
  const [reports, sanctions, rooms, products] = await Promise.all([
    reportQueue(db),
    sanctionsInForce(db),
    roomsForStaff(db),
    // The products a room can be for; without the catalogue the form takes the product's name as typed.
    plansByProduct(catalogue).then(
      (plans) => [...plans.keys()],
      () => [],
    ),
  ]);
  return { reports, sanctions, rooms, products, now: Date.now() };
}

const titles: ProblemTitles = { invalid: "Please check the form", conflict: "Nothing changed", "not-found": "Not found" };

function done(input: ChatModeration, { username, removed }: Moderated): Toast {
  const who = username ?? "The member";
  switch (input.intent) {
    case "delete":
      return { title: "Message removed", description: "Everyone in the room now sees it as removed by staff." };
    case "purge":
      return { title: "Last hour removed", description: `${counted(removed, "message")} by ${who} removed.` };
    case "mute":
      return { title: "Member muted", description: `${who} cannot post for ${counted(input.minutes, "minute")}.` };
    case "unmute":
      return { title: "Mute lifted", description: `${who} can post again.` };
    case "ban":
      return { title: "Banned from the chat", description: `${who} can no longer open the chat. The shop is still theirs.` };
    case "unban":
      return { title: "Ban lifted", description: `${who} can chat again.` };
    case "pin":
      return { title: "Message pinned", description: "It shows at the top of the room." };
    case "unpin":
      return { title: "Message unpinned" };
    case "dismiss":
      return { title: "Report dismissed", description: "The message stays." };
  }
}

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "chat", chatModerationSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const { value: input, viewer } = submission;
  const { db, env } = app(context);
  const result = await moderate(chatDeps(env, db), viewer, input, clientAddress(request));
  return answer(result, { titles, intent: input.intent, success: (value) => done(input, value) });
}

export default function ChatModerationPage({ loaderData }: Route.ComponentProps) {
  const { reports, sanctions, rooms, products, now } = loaderData;
  return (
    <div className="space-y-8">
      <div>
        <h1 className="text-3xl font-black">Chat Moderation</h1>
        <p className="mt-2 max-w-2xl text-sm text-muted">
          Reports from members, the mutes and bans in force, and the chat&apos;s rooms. Everything done here, and from the moderator&apos;s
          menu in the hub&apos;s chat, is in the audit log with who did it, to whom and why.
        </p>
      </div>
      <ReportQueue reports={reports} />
      <SanctionsCard sanctions={sanctions} now={now} />
      <RoomsCard rooms={rooms} products={products} />
    </div>
  );
}
