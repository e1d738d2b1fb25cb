// The Health page's two buttons: a test e-mail to the staff member's own address, and a ping on the job queue.
import * as v from "valibot";

export const healthActionSchema = v.variant(
  "intent",
  [v.object({ intent: v.literal("test-mail") }), v.object({ intent: v.literal("ping-queue") })],
  "Unknown request",
);
