// POST /dashboard/chat-moderation/rooms: the moderation page's room forms (create a room, change
// its rules, archive or restore it). Nested under the page, so only staff who moderate the chat
// get here; every change is audited and reaches the room's open sockets at once.
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { clientAddress } from "~/http/caller.server";
import { app } from "~/http/context.server";
import { readStaffAction } from "~/http/staff-action.server";
import { chatRoomSchema } from "~/lib/schemas/chat";
import { chatDeps } from "~/server/chat/chat-gateway.server";
import { manageRoom } from "~/server/chat/rooms.server";
import type { Route } from "./+types/chat-moderation.rooms";

const titles: ProblemTitles = { invalid: "Please check the form", conflict: "Nothing changed", "not-found": "Not found" };

const DONE = {
  create: "Room created",
  settings: "Rules saved",
  archive: "Room archived",
  restore: "Room restored",
} as const;

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "chat-rooms", chatRoomSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const { value: form, viewer } = submission;
  const { db, env, catalogue } = app(context);
  const result = await manageRoom({ ...chatDeps(env, db), catalogue }, viewer, form, clientAddress(request));
  return answer(result, { titles, intent: form.intent, success: ({ name }) => ({ title: DONE[form.intent], description: name }) });
}
