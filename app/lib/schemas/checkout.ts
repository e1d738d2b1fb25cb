// The demo checkout's pay form (development and tests only): the e-mail the key is sent to.
import * as v from "valibot";

const INVALID_EMAIL = "Enter a valid e-mail address";

export const demoPaySchema = v.object({
  email: v.pipe(v.optional(v.string(), ""), v.trim(), v.email(INVALID_EMAIL), v.maxLength(254, INVALID_EMAIL)),
});
