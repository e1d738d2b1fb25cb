// Discord role settings as staff enter them, checked alike in the browser and on the server.
import * as v from "valibot";
import { LICENCE_PLANS } from "./plans";

/** The most roles the sync manages: each one a member may need changed is one request to Discord. */
export const MAX_MANAGED_ROLES = 5;

/** What a rule grants a role for: every active licence, or one plan's. */
export const ROLE_GRANTS = ["any", ...LICENCE_PLANS] as const;
export const GRANT_LABELS: Record<(typeof ROLE_GRANTS)[number], string> = {
  any: "Any active licence",
  daily: "Daily plan",
  weekly: "Weekly plan",
  monthly: "Monthly plan",
  lifetime: "Lifetime plan",
};

// Discord ids are snowflakes: 17 to 20 digits.
const snowflake = (what: string) =>
  v.pipe(v.string(), v.trim(), v.regex(/^\d{17,20}$/, `${what} is a Discord id: 17 to 20 digits (Developer Mode → Copy ID)`));

export const discordSettingsSchema = v.variant("intent", [
  v.object({ intent: v.literal("discord-guild"), guildId: snowflake("The server id") }),
  v.object({
    intent: v.literal("discord-rule-add"),
    grant: v.picklist(ROLE_GRANTS, "Choose what grants the role"),
    roleId: snowflake("The role"),
  }),
  v.object({ intent: v.literal("discord-rule-remove"), ruleId: v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1)) }),
]);
